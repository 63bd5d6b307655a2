import { sql } from "drizzle-orm";
import { queryRows } from "../../db/database.js";
import { nameKey } from "../../vocabulary/entity-names.js";
import { SELF_PLACEHOLDER } from "./apply-graph.js";
import { keysOf } from "./entity-writes.js";
import { type GraphWriter, writeGraphHistory } from "./graph-history.js";

/** What a redaction took out of the graph. */
export interface GraphRedaction {
  /** Relations stated only in redacted events: deleted (history keeps a REDACT entry without words). */
  relations_removed: number;
  /** Entities named only in redacted events: deleted likewise. */
  entities_removed: number;
  /** Entities named elsewhere too that lost the names only the redacted event gave them. */
  entities_renamed: number;
}

/**
 * Cascading retraction in the entity graph (the event is a tombstone by now, under the user's
 * lock): the event's mentions go; a relation whose every source is redacted goes, and what it had
 * superseded holds again; an entity no remaining event names goes (the user's own node stays);
 * an entity still named elsewhere keeps only the names a remaining event uses, its description
 * dropped (it may repeat the words). History entries that carry a removed name or a removed
 * relation's words are emptied, and each removal leaves a REDACT entry that says only that it happened.
 *
 * @example
 * const removed = await redactGraph({ tx, appId, userId, actor: "redaction", now }, eventId, 7);
 */
export async function redactGraph(writer: GraphWriter, eventId: string, seq: number): Promise<GraphRedaction> {
  const { tx } = writer;
  const touched = (
    await queryRows<{ id: string }>(tx, sql`SELECT DISTINCT entity_id AS id FROM entity_mentions WHERE event_id = ${eventId}`)
  ).map((row) => row.id);
  await tx.execute(sql`DELETE FROM entity_mentions WHERE event_id = ${eventId}`);

  const cited = await queryRows<{ id: string; subject_id: string; object_id: string | null; others: number }>(
    tx,
    sql`SELECT r.id, r.subject_id, r.object_id,
               (SELECT count(*)::int FROM relation_sources o JOIN session_events oe ON oe.id = o.event_id
                 WHERE o.relation_id = r.id AND o.event_id <> ${eventId} AND NOT (coalesce(oe.data, '{}'::jsonb) ? 'tombstone')) AS others
          FROM relations r JOIN relation_sources s ON s.relation_id = r.id WHERE s.event_id = ${eventId}`,
  );
  const removed = cited.filter((row) => Number(row.others) === 0).map((row) => row.id);
  await tx.execute(sql`DELETE FROM relation_sources WHERE event_id = ${eventId}`);
  if (removed.length > 0) {
    // What they had replaced holds again: the statement that replaced it never stood.
    await tx.execute(
      sql`UPDATE relations SET invalid_at = NULL, expired_at = NULL, superseded_by = NULL, updated_at = ${writer.now}
           WHERE superseded_by IN ${removed}`,
    );
    await tx.execute(sql`DELETE FROM relations WHERE id IN ${removed}`);
    await tx.execute(sql`UPDATE graph_history SET before = NULL, after = NULL, reason = NULL WHERE relation_id IN ${removed}`);
    for (const id of removed)
      await writeGraphHistory(writer, { relationId: id, operation: "REDACT", reason: `source event ${seq} redacted` });
  }

  const ends = [...new Set([...touched, ...cited.flatMap((row) => [row.subject_id, ...(row.object_id ? [row.object_id] : [])])])];
  const outcome = { relations_removed: removed.length, entities_removed: 0, entities_renamed: 0 };
  for (const id of ends) {
    const change = await settleEntity(writer, id, seq);
    if (change === "removed") outcome.entities_removed++;
    if (change === "renamed") outcome.entities_renamed++;
  }
  return outcome;
}

/** An entity after its evidence lost an event: removed, renamed to what remains, or as it was. */
async function settleEntity(writer: GraphWriter, id: string, seq: number): Promise<"removed" | "renamed" | "kept"> {
  const { tx } = writer;
  const [entity] = await queryRows<{ name: string; aliases: string[]; self: boolean; edges: number }>(
    tx,
    sql`SELECT e.name, e.aliases, e.self,
               (SELECT count(*)::int FROM relations r WHERE r.subject_id = e.id OR r.object_id = e.id) AS edges
          FROM entities e WHERE e.id = ${id}`,
  );
  if (!entity) return "kept";
  const surfaces = (
    await queryRows<{ surface: string }>(tx, sql`SELECT surface FROM entity_mentions WHERE entity_id = ${id} ORDER BY occurred_at DESC`)
  ).map((row) => row.surface);
  if (surfaces.length === 0 && Number(entity.edges) === 0 && !entity.self) {
    await tx.execute(sql`DELETE FROM entities WHERE id = ${id}`);
    await scrubHistory(writer, [entity.name, ...entity.aliases], id);
    await writeGraphHistory(writer, { entityId: id, operation: "REDACT", reason: `named only in redacted events (the last: ${seq})` });
    return "removed";
  }
  const attested = new Set(surfaces.map(nameKey));
  const names = [entity.name, ...entity.aliases];
  const kept = names.filter((name) => attested.has(nameKey(name)));
  const gone = names.filter((name) => !attested.has(nameKey(name)) && name !== SELF_PLACEHOLDER);
  if (gone.length === 0) {
    await tx.execute(sql`UPDATE entities SET summary = NULL, embedding = NULL, embedding_model = NULL WHERE id = ${id}`);
    return "kept";
  }
  const name = kept.includes(entity.name)
    ? entity.name
    : (surfaces.find((surface) => attested.has(nameKey(surface))) ?? (entity.self ? SELF_PLACEHOLDER : "[redacted]"));
  const aliases = kept.filter((alias) => nameKey(alias) !== nameKey(name));
  await tx.execute(
    sql`UPDATE entities SET name = ${name}, name_key = ${nameKey(name)}, aliases = ${textArray(aliases)}, keys = ${textArray(keysOf(name, aliases))},
               summary = NULL, embedding = NULL, embedding_model = NULL, updated_at = ${writer.now}
         WHERE id = ${id}`,
  );
  await scrubHistory(writer, gone);
  await writeGraphHistory(writer, { entityId: id, operation: "REDACT", reason: `names only redacted event ${seq} gave it were removed` });
  return "renamed";
}

const textArray = (values: readonly string[]) =>
  sql`ARRAY[${sql.join(
    values.map((value) => sql`${value}`),
    sql`, `,
  )}]::text[]`;

/** Empties every history entry of the user that carries one of `names` (an entity's, or another's that named it), and all of `entityId`'s. */
async function scrubHistory(writer: GraphWriter, names: readonly string[], entityId?: string): Promise<void> {
  const patterns = names.filter((name) => name.length > 0).map((name) => `%${name.replace(/[\\%_]/g, "\\$&")}%`);
  const carries =
    patterns.length === 0
      ? sql`false`
      : sql.join(
          patterns.map((pattern) => sql`concat(h.before::text, h.after::text, h.reason) ILIKE ${pattern}`),
          sql` OR `,
        );
  await writer.tx.execute(
    sql`UPDATE graph_history h SET before = NULL, after = NULL, reason = NULL
         WHERE h.app_id = ${writer.appId} AND h.user_id = ${writer.userId} AND (${entityId ? sql`h.entity_id = ${entityId} OR ` : sql``}${carries})`,
  );
}
