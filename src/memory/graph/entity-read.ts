import { type SQL, sql } from "drizzle-orm";
import { z } from "zod";
import { type Queryable, queryRows } from "../../db/database.js";
import { notFound } from "../../errors.js";
import { nameKey } from "../../vocabulary/entity-names.js";
import { ExternalIdSchema } from "../../vocabulary/external-id.js";

const UserField = ExternalIdSchema;
const AppField = ExternalIdSchema.default("default");
const AsOfField = z.iso
  .datetime({ offset: true })
  .optional()
  .describe("Read the graph as the world was then (valid time, as for memories): entities named by then, relations as they held then");

export const ListEntitiesQuerySchema = z.strictObject({
  user_id: UserField,
  app_id: AppField,
  /** Any of an entity's names, or the start of one ("Ort" finds Mr. Ortiz). */
  q: z.string().trim().min(1).max(200).optional(),
  as_of: AsOfField,
  limit: z.coerce.number().int().min(1).max(500).default(50),
});
export type ListEntitiesQuery = z.infer<typeof ListEntitiesQuerySchema>;

export const EntityReadQuerySchema = z.strictObject({ as_of: AsOfField });

/** An entity as the API reads it. */
export interface EntityRow {
  id: string;
  app_id: string;
  user_id: string;
  name: string;
  kind: string;
  self: boolean;
  aliases: string[];
  summary: string | null;
  valid_at: string;
  created_at: string;
  expired_at: string | null;
  merged_into: string | null;
}

/** A relation of an entity, from either end, with whether it held at the reading time. */
export interface EntityRelationRow {
  id: string;
  subject_id: string;
  subject: string;
  predicate: string;
  object_id: string | null;
  object: string;
  content: string;
  confidence: number;
  valid_at: string;
  invalid_at: string | null;
  created_at: string;
  expired_at: string | null;
  superseded_by: string | null;
  current: boolean;
  sources: { event_id: string; session_id: string; seq: number }[];
}

/** A session event that names the entity (or that it said). */
export interface EntityMentionRow {
  event_id: string;
  session_id: string;
  seq: number;
  surface: string;
  said: boolean;
  occurred_at: string;
}

export interface EntityDetail {
  entity: EntityRow;
  relations: EntityRelationRow[];
  mentions: EntityMentionRow[];
}

/** An entity's latest mentions the detail lists. */
const MAX_MENTIONS = 100;

const ENTITY_COLUMNS = sql`e.id, e.app_id, e.user_id, e.name, e.kind, e.self, e.aliases, e.summary, e.valid_at::text, e.created_at::text,
  e.expired_at::text, e.merged_into`;

/** A current node (not merged into another) named by `at` in the world. */
const namedBy = (at: string): SQL => sql`e.expired_at IS NULL AND e.valid_at <= ${at}::timestamptz`;

/**
 * A user's entities, the user's own node first, then the most recently named: those named by
 * now, or by `as_of` (world time, as `as_of` reads memories); `q` matches any of their names,
 * whole or by its start. A node merged into another is read through the survivor.
 *
 * @example
 * await listEntities(db, { user_id: "ana", app_id: "default", q: "maya", limit: 50 }, new Date());
 */
export async function listEntities(db: Queryable, query: ListEntitiesQuery, now: Date): Promise<EntityRow[]> {
  const at = (query.as_of ? new Date(query.as_of) : now).toISOString();
  const key = query.q ? nameKey(query.q) : "";
  const named = query.q
    ? sql`AND (${key} = ANY(e.keys) OR EXISTS (SELECT 1 FROM unnest(e.keys) k WHERE k LIKE ${`${key.replace(/[\\%_]/g, "\\$&")}%`}))`
    : sql``;
  return queryRows<EntityRow>(
    db,
    sql`SELECT ${ENTITY_COLUMNS} FROM entities e
         WHERE e.app_id = ${query.app_id} AND e.user_id = ${query.user_id} AND ${namedBy(at)} ${named}
         ORDER BY e.self DESC, e.valid_at DESC, e.id LIMIT ${query.limit}`,
  );
}

/**
 * One entity with its relations from either end — those that hold at the reading time
 * (`current`) and those that ended or were superseded (past), each with the events that stated
 * it — and its latest mentions. `as_of` reads the world as it was then (valid time): a relation
 * that began later is not there yet, one superseded or retracted since is current again.
 *
 * @example
 * const { entity, relations } = await getEntity(db, id, { now: new Date() });
 */
export async function getEntity(db: Queryable, id: string, options: { now: Date; asOf?: string }): Promise<EntityDetail> {
  if (!z.uuid().safeParse(id).success) throw notFound("entity", id);
  const at = (options.asOf ? new Date(options.asOf) : options.now).toISOString();
  const [entity] = await queryRows<EntityRow>(
    db,
    sql`SELECT ${ENTITY_COLUMNS} FROM entities e WHERE e.id = ${id}::uuid AND e.valid_at <= ${at}::timestamptz`,
  );
  if (!entity) throw notFound("entity", id);
  const relations = await queryRows<EntityRelationRow>(
    db,
    sql`SELECT r.id, r.subject_id, s.name AS subject, r.predicate, r.object_id, coalesce(o.name, r.object_value) AS object, r.content,
               r.confidence, r.valid_at::text, r.invalid_at::text, r.created_at::text, r.expired_at::text, r.superseded_by,
               (r.invalid_at IS NULL OR r.invalid_at > ${at}::timestamptz) AS current,
               coalesce((SELECT json_agg(json_build_object('event_id', rs.event_id, 'session_id', rs.session_id, 'seq', rs.seq) ORDER BY rs.seq)
                           FROM relation_sources rs WHERE rs.relation_id = r.id), '[]'::json) AS sources
          FROM relations r JOIN entities s ON s.id = r.subject_id LEFT JOIN entities o ON o.id = r.object_id
         WHERE (r.subject_id = ${id}::uuid OR r.object_id = ${id}::uuid)
           AND r.valid_at <= ${at}::timestamptz
         ORDER BY current DESC, r.valid_at DESC, r.id`,
  );
  const mentions = await queryRows<EntityMentionRow>(
    db,
    sql`SELECT event_id, session_id, seq, surface, said, occurred_at::text FROM entity_mentions
         WHERE entity_id = ${id}::uuid AND occurred_at <= ${at}::timestamptz
         ORDER BY occurred_at DESC, seq DESC LIMIT ${MAX_MENTIONS}`,
  );
  return { entity, relations, mentions };
}
