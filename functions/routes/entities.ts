import { z } from "zod";
import { EntityReadQuerySchema, getEntity, ListEntitiesQuerySchema, listEntities } from "../../src/memory/graph/entity-read.js";
import { apiRoutes, defineRoute, jsonAnswer } from "../contract/define-route.js";
import { EntityDetailSchema, EntitySchema, entityDetailJson, entityJson } from "../json/entity.js";
import { ownedByCaller } from "../middleware/ownership.js";

const EntityPath = z.object({ id: z.string().describe("The entity's id") });
const tags = ["entities"];

const list = defineRoute({
  method: "get",
  path: "/",
  tags,
  summary: "A user's entity graph: the people, pets, places and organisations named, by name (`q`), as of a time (`as_of`)",
  request: { query: ListEntitiesQuerySchema },
  responses: {
    200: jsonAnswer("The entities, the user's own node first, then the most recently named", z.object({ entities: z.array(EntitySchema) })),
  },
});

const read = defineRoute({
  method: "get",
  path: "/{id}",
  tags,
  summary: "One entity with its relations (current and past, with their source events) and its latest mentions, as of a time (`as_of`)",
  request: { params: EntityPath, query: EntityReadQuerySchema },
  responses: { 200: jsonAnswer("The entity, its relations and mentions", EntityDetailSchema) },
});

const routes = apiRoutes<"db" | "clock">();
routes.use("/:id", ownedByCaller("entities"));

/** The entity graph derived from the conversations (issue 40, docs/graph.md). */
export const entityRoutes = routes
  .openapi(list, async (c) => {
    const rows = await listEntities(c.var.deps.db, c.req.valid("query"), c.var.deps.clock.now());
    return c.json({ entities: rows.map(entityJson) }, 200);
  })
  .openapi(read, async (c) => {
    const { as_of } = c.req.valid("query");
    const detail = await getEntity(c.var.deps.db, c.req.valid("param").id, {
      now: c.var.deps.clock.now(),
      ...(as_of ? { asOf: as_of } : {}),
    });
    return c.json(entityDetailJson(detail), 200);
  });
