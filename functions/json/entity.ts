import { z } from "zod";
import type { EntityDetail, EntityMentionRow, EntityRelationRow, EntityRow } from "../../src/memory/graph/entity-read.js";
import { ENTITY_KINDS } from "../../src/vocabulary/entity-kinds.js";
import { Timestamp, timestamp } from "./timestamp.js";

/** A node of a user's entity graph: a person, pet, place, organisation… the conversations name. */
export const EntitySchema = z.object({
  id: z.uuid(),
  app_id: z.string(),
  user_id: z.string(),
  name: z.string().describe("What it is called now"),
  kind: z.enum(ENTITY_KINDS),
  self: z.boolean().describe("The user's own node"),
  aliases: z.array(z.string()).describe("Every other name it went by"),
  summary: z.string().nullable(),
  valid_at: Timestamp.describe("When it was first named in the world"),
  created_at: Timestamp,
  expired_at: Timestamp.nullable().describe("When the system stopped believing this node (merged into another)"),
  merged_into: z.uuid().nullable(),
});

const SourceSchema = z.object({ event_id: z.uuid(), session_id: z.uuid(), seq: z.number().int() });

/** An edge from or to the entity, with when it held and when it was believed. */
export const EntityRelationSchema = z.object({
  id: z.uuid(),
  subject_id: z.uuid(),
  subject: z.string(),
  predicate: z.string(),
  object_id: z.uuid().nullable().describe("The object entity, or null when the object is a value"),
  object: z.string(),
  content: z.string(),
  confidence: z.number(),
  valid_at: Timestamp,
  invalid_at: Timestamp.nullable().describe("When it stopped holding in the world"),
  created_at: Timestamp,
  expired_at: Timestamp.nullable().describe("When a newer statement superseded it"),
  superseded_by: z.uuid().nullable(),
  current: z.boolean().describe("Holds and is believed at the reading time (now, or as_of)"),
  sources: z.array(SourceSchema).describe("The session events that stated it"),
});

export const EntityMentionSchema = z.object({
  event_id: z.uuid(),
  session_id: z.uuid(),
  seq: z.number().int(),
  surface: z.string().describe("The name used there"),
  said: z.boolean().describe("The entity is the participant who said it"),
  occurred_at: Timestamp,
});

export const EntityDetailSchema = z.object({
  entity: EntitySchema,
  relations: z.array(EntityRelationSchema).describe("Current ones first, then past ones"),
  mentions: z.array(EntityMentionSchema).describe("The latest events that name it, newest first"),
});

const maybe = (value: string | null) => (value === null ? null : timestamp(value));

export function entityJson(row: EntityRow): z.infer<typeof EntitySchema> {
  return {
    ...row,
    kind: z.enum(ENTITY_KINDS).parse(row.kind),
    valid_at: timestamp(row.valid_at),
    created_at: timestamp(row.created_at),
    expired_at: maybe(row.expired_at),
  };
}

function relationJson(row: EntityRelationRow): z.infer<typeof EntityRelationSchema> {
  return {
    ...row,
    valid_at: timestamp(row.valid_at),
    invalid_at: maybe(row.invalid_at),
    created_at: timestamp(row.created_at),
    expired_at: maybe(row.expired_at),
  };
}

function mentionJson(row: EntityMentionRow): z.infer<typeof EntityMentionSchema> {
  return { ...row, occurred_at: timestamp(row.occurred_at) };
}

export function entityDetailJson(detail: EntityDetail): z.infer<typeof EntityDetailSchema> {
  return { entity: entityJson(detail.entity), relations: detail.relations.map(relationJson), mentions: detail.mentions.map(mentionJson) };
}
