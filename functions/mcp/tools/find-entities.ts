import { ListEntitiesQuerySchema, listEntities } from "../../../src/memory/graph/entity-read.js";
import { entityJson } from "../../json/entity.js";
import { defineTool } from "../tool.js";

/** `find_entities`: what `GET /v1/entities` takes — the people, pets, places and organisations the user's conversations name. */
export const findEntities = defineTool<"db" | "clock">()({
  name: "find_entities",
  title: "Find people and places",
  description:
    "The people, pets, places, organisations, objects and events the user's conversations name, the user's own node first. " +
    "`q` matches any of an entity's names or the start of one; `as_of` (an RFC 3339 time) reads the graph as the world was then; " +
    "`limit` caps the list. Each entity's id goes to read_entity.",
  input: ListEntitiesQuerySchema,
  example: { user_id: "ana", q: "Maya", limit: 10 },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(input, { deps }) {
    const rows = await listEntities(deps.db, input, deps.clock.now());
    return { entities: rows.map(entityJson) };
  },
});
