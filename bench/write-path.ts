import { sql } from "drizzle-orm";
import type { Runtime } from "../functions/node-runtime.js";
import type { Env } from "../src/config/env.js";
import { type Database, queryRows } from "../src/db/database.js";
import { toVectorLiteral } from "../src/db/vector.js";
import { nearestEntitiesSql } from "../src/memory/graph/entity-resolution.js";
import { annIndexName } from "../src/memory/recall/ann-index.js";
import { nearestCurrentMemory, nearestCurrentSql } from "../src/memory/write/nearest-current.js";
import { buildAnnIndexAsService, buildUserAnnIndexesAsService } from "./ann.js";
import { clusteredVector, seedMemories } from "./retrieval.js";
import { type Summary, summarize, time } from "./stats.js";

const USER = "write-path";
const scope = { appId: "default", userId: USER };
/** Phases of the seeded vectors: the user's turns, their facts, facts they have not stated yet, their entities. */
const PHASE = { turns: 0, facts: 2, newFacts: 4, entities: 5 };

export interface WritePathReport {
  memories: number;
  facts: number;
  entities: number;
  /** Whether the model's HNSW index (and the user's own) were there: a real Postgres. */
  indexes: string[];
  /** Floor, before, after, and the entity search, each per probe. */
  rows: Summary[];
  /**
   * Probes where the search before and after found the same nearest fact, among restatements (the
   * nearest is the duplicate) and facts near none (the nearest is only compared with the threshold),
   * and the same duplicate decision.
   */
  agreement: { probes: number; sameNearest: { restated: string; nearNone: string }; sameDecision: number };
  /** The scans of each statement's plan ("Index Scan using …", "Seq Scan on …"). */
  plans: { before: string[]; after: string[]; entities: string[] };
}

/**
 * The vector searches of one fact write at `size` memories of one user (a tenth of them facts),
 * on the database the runtime has: the duplicate check as it ran before (distance on the uncast
 * column: an exact scan of the user's rows) and now (`nearest-current.ts`: the `halfvec(d)`
 * expression the HNSW indexes are built on, as recall uses them), and entity resolution's
 * description search. Probes alternate: half restatements of a held fact (duplicates), half
 * facts near none. Floor: the content-hash lookup every fact write makes before either.
 */
export async function benchWritePath(
  runtime: Runtime,
  env: Env,
  options: { size: number; entities: number; probes: number },
): Promise<WritePathReport> {
  const db = runtime.database.db;
  const { model } = runtime.providers.embedder;
  const facts = Math.round(options.size / 10);
  const onServer = runtime.database.kind !== "pglite";
  // Seeded without the model's index (the service built it at start-up), then built as the service builds it: far faster than 100K inserts into the graph.
  if (onServer)
    await db.execute(
      sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS "${annIndexName({ model, dimensions: runtime.providers.embedder.dimensions })}"`),
    );
  await seedMemories(runtime, USER, options.size - facts, model, { phase: PHASE.turns, analyze: false });
  await seedMemories(runtime, USER, facts, model, {
    phase: PHASE.facts,
    analyze: false,
    kind: { type: "semantic", subtype: "profile", label: "Fact" },
  });
  await seedEntities(db, options.entities, model);
  const indexes: string[] = [];
  if (onServer) {
    await buildAnnIndexAsService(runtime, env);
    await buildUserAnnIndexesAsService(runtime, env);
    indexes.push(
      ...(
        await queryRows<{ name: string }>(
          db,
          sql`SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
               WHERE i.indrelid = 'memories'::regclass AND (starts_with(c.relname, 'memories_ann_') OR starts_with(c.relname, 'memories_user_ann_')) AND i.indisvalid`,
        )
      ).map((row) => row.name),
    );
  }
  await db.execute(sql`ANALYZE`);

  const held = await queryRows<{ content_hash: string; embedding: string }>(
    db,
    sql`SELECT content_hash, embedding::text AS embedding FROM memories WHERE user_id = ${USER} AND type = 'semantic' ORDER BY random() LIMIT ${options.probes}`,
  );
  const probes = held.map((row, i) => {
    const restated = i % 2 === 0;
    const vector = restated
      ? nudge(JSON.parse(row.embedding) as number[], i)
      : unit(Array.from({ length: 512 }, (_, g) => clusteredVector(1 + (i % 20), 21 + i, 41 + i, g + 1, 0, PHASE.newFacts)));
    return { hash: row.content_hash, vector, restated };
  });
  const entityVector = (i: number) => ({
    values: unit(Array.from({ length: 512 }, (_, g) => clusteredVector(1 + (i % 20), 21 + i, 41 + i, g + 1, 0, PHASE.entities))),
    model,
  });

  const floor: number[] = [];
  const before: number[] = [];
  const after: number[] = [];
  const entities: number[] = [];
  const agreement = { probes: 0, sameDecision: 0 };
  const nearest = { restated: [0, 0], nearNone: [0, 0] };
  const warmUp = 3;
  for (const [i, probe] of probes.entries()) {
    const request = { scope, types: ["semantic"], vector: probe.vector, model };
    let found: { before?: { id: string; similarity: number }; after?: { id: string; similarity: number } } = {};
    // Each as a fact write runs it: in a transaction of its own, after the content-hash lookup.
    const measureBefore = () =>
      db.transaction(async (tx) => {
        floor.push(await time(() => hashLookup(tx as unknown as Database, probe.hash)));
        let nearest: { id: string; similarity: number } | undefined;
        before.push(await time(async () => ([nearest] = await queryRows<{ id: string; similarity: number }>(tx, beforeSql(request)))));
        found = { ...found, ...(nearest ? { before: { id: nearest.id, similarity: Number(nearest.similarity) } } : {}) };
      });
    const measureAfter = () =>
      db.transaction(async (tx) => {
        floor.push(await time(() => hashLookup(tx as unknown as Database, probe.hash)));
        let nearest: { id: string; similarity: number } | undefined;
        after.push(await time(async () => (nearest = await nearestCurrentMemory(tx, request))));
        found = { ...found, ...(nearest ? { after: nearest } : {}) };
        entities.push(await time(() => queryRows(tx, nearestEntitiesSql(scope, entityVector(i)))));
      });
    // Alternating which goes first, so neither always finds the pages the other brought in.
    if (i % 2 === 0) {
      await measureBefore();
      await measureAfter();
    } else {
      await measureAfter();
      await measureBefore();
    }
    if (i < warmUp) {
      for (const samples of [floor, before, after, entities]) samples.splice(samples.length - (samples === floor ? 2 : 1));
      continue;
    }
    agreement.probes++;
    const tally = probe.restated ? nearest.restated : nearest.nearNone;
    tally[1] = (tally[1] ?? 0) + 1;
    if (found.before?.id === found.after?.id) tally[0] = (tally[0] ?? 0) + 1;
    if ((found.before?.similarity ?? 0) > 0.95 === (found.after?.similarity ?? 0) > 0.95) agreement.sameDecision++;
  }
  const request = { scope, types: ["semantic"], vector: probes[0]?.vector ?? [], model };
  const plans = {
    before: await planIndexes(db, beforeSql(request), false),
    after: await planIndexes(db, nearestCurrentSql(request), true),
    entities: await planIndexes(db, nearestEntitiesSql(scope, entityVector(0)), false),
  };
  return {
    memories: options.size,
    facts,
    entities: options.entities,
    indexes,
    rows: [
      summarize("floor: the fact's content-hash lookup", floor),
      summarize("duplicate check before (uncast, exact scan)", before),
      summarize("duplicate check now (halfvec(d), index)", after),
      summarize("entity resolution's description search", entities),
    ],
    agreement: {
      ...agreement,
      sameNearest: { restated: `${nearest.restated[0]}/${nearest.restated[1]}`, nearNone: `${nearest.nearNone[0]}/${nearest.nearNone[1]}` },
    },
    plans,
  };
}

/** The duplicate check as the write path ran it before this change (`consolidate.ts` at ddcd584). */
function beforeSql(request: { types: string[]; vector: number[]; model: string }) {
  const literal = toVectorLiteral(request.vector);
  return sql`SELECT id, 1 - (embedding <=> ${literal}::halfvec) AS similarity FROM memories
       WHERE app_id = ${scope.appId} AND user_id = ${scope.userId} AND type IN ${request.types} AND expired_at IS NULL
         AND embedding IS NOT NULL AND embedding_model = ${request.model}
       ORDER BY embedding <=> ${literal}::halfvec LIMIT 1`;
}

function hashLookup(tx: Database, hash: string) {
  return queryRows(
    tx,
    sql`SELECT * FROM memories WHERE app_id = ${scope.appId} AND user_id = ${scope.userId} AND type IN ('semantic') AND expired_at IS NULL AND content_hash = ${hash} LIMIT 1`,
  );
}

/** The indexes a statement's plan reads (with the write path's settings when `indexSettings`). */
async function planIndexes(db: Database, statement: ReturnType<typeof sql>, indexSettings: boolean): Promise<string[]> {
  return db.transaction(async (tx) => {
    if (indexSettings)
      await tx.execute(sql`SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('jit', 'off', true)`);
    const plan = await queryRows<{ "QUERY PLAN": string }>(tx, sql`EXPLAIN ${statement}`);
    const scans = /(Seq Scan on \w+|Index Scan using \w+|Index Only Scan using \w+|Bitmap Index Scan on \w+)/g;
    return [...new Set(plan.flatMap((row) => [...row["QUERY PLAN"].matchAll(scans)].map((match) => match[1] as string)))];
  });
}

async function seedEntities(db: Database, count: number, model: string): Promise<void> {
  const component = sql`sin(g * (1 + i % 20) + ${PHASE.entities}::float8) + 0.5 * sin(g * (21 + i) + 1 + ${PHASE.entities}::float8) + 0.25 * sin(g * (41 + i % 397) + 2) + (random() - 0.5) * 0.1`;
  await db.execute(sql`
    INSERT INTO entities (id, app_id, user_id, name, name_key, kind, keys, valid_at, embedding, embedding_model)
    SELECT gen_random_uuid(), 'default', ${USER}, 'Entity ' || i, 'entity ' || i, 'person', ARRAY['entity ' || i], now(),
           (SELECT array_agg(${component})::real[] FROM generate_series(1, 512) AS g)::halfvec, ${model}
      FROM generate_series(1, ${count}::int) AS i`);
}

const unit = (values: number[]) => {
  const norm = Math.hypot(...values);
  return values.map((value) => value / norm);
};
/** A held fact's vector a little off: what a restatement embeds to (similarity ~0.99). */
const nudge = (values: number[], seed: number) => unit(values.map((value, d) => value + 0.01 * Math.sin((seed + 1) * (d + 1))));
