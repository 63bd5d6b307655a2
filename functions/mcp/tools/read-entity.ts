import { z } from "zod";
import { notFound } from "../../../src/errors.js";
import { EntityReadQuerySchema, getEntity } from "../../../src/memory/graph/entity-read.js";
import { ExternalIdSchema } from "../../../src/vocabulary/external-id.js";
import { entityDetailJson } from "../../json/entity.js";
import { defineTool } from "../tool.js";

/** The user an entity belongs to, as the entity routes name one, its id and the reading time (`GET /v1/entities/{id}`). */
const ReadEntityInput = EntityReadQuerySchema.extend({
  user_id: ExternalIdSchema,
  app_id: ExternalIdSchema.default("default"),
  entity_id: z.uuid(),
});

/** `read_entity`: one entity with its relations, current and past, and the events that name it. */
export const readEntity = defineTool<"db" | "clock">()({
  name: "read_entity",
  title: "Read a person or place",
  description:
    "One entity of the user's graph by `entity_id` (as `find_entities` returns it): its relations to others from either end — " +
    "those that hold now first, then those that ended or were replaced, each with the events that said it — and its latest mentions. " +
    "`as_of` (an RFC 3339 time) reads it as the world was then.",
  input: ReadEntityInput,
  example: { user_id: "ana", entity_id: "0b7e3c1a-3f0e-4f7a-9f3e-2d8f6c1b5a90" },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(input, { deps }) {
    const detail = await getEntity(deps.db, input.entity_id, { now: deps.clock.now(), ...(input.as_of ? { asOf: input.as_of } : {}) });
    // Another app's or user's entity is "not found", never "forbidden": a caller learns nothing of it.
    if (detail.entity.app_id !== input.app_id || detail.entity.user_id !== input.user_id) throw notFound("entity", input.entity_id);
    return entityDetailJson(detail);
  },
});
