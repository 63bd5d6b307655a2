import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusteredVector } from "../../bench/retrieval.js";
import type { Runtime } from "../../functions/node-runtime.js";
import { type Database, queryRows } from "../../src/db/database.js";
import { toVectorLiteral } from "../../src/db/vector.js";
import { ResidentMemories } from "../../src/memory/recall/engines/resident/resident-memories.js";
import { recallMemories } from "../../src/memory/recall/hybrid-recall.js";
import { startTestRuntime } from "../fixtures/runtime.js";

/**
 * The embedded recall index: a copy of a user's memories (vectors and words) in the process, kept
 * current through the change log. PGlite only (that is where it runs), whatever TEST_DATABASE_URL says.
 */
const MODEL = "test-model";
const DIMENSIONS = 64;
const DAY = 86_400_000;

/** Memory i's vector: clustered by topic, subtopic and detail, as the bench's are (and real embeddings). */
const vectorOf = (i: number) =>
  Array.from({ length: DIMENSIONS }, (_, g) => clusteredVector(1 + (i % 20), 21 + ((i / 20) % 20), 41 + (i % 397), g + 1, 0));

async function insertMemories(db: Database, userId: string, from: number, to: number, validAt = new Date(Date.now() - DAY)) {
  for (let start = from; start < to; start += 500) {
    const rows = Array.from({ length: Math.min(500, to - start) }, (_, k) => start + k);
    await db.execute(
      sql`INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash, valid_at, embedding, embedding_model, metadata) VALUES ${sql.join(
        rows.map(
          (i) =>
            sql`(gen_random_uuid(), 'default', ${userId}, 'episodic', 'turn', ${`memory ${i}`}, ${`hash-${i}`}, ${validAt.toISOString()}::timestamptz,
                 ${toVectorLiteral(vectorOf(i))}::halfvec, ${MODEL}, ${JSON.stringify({ seq: i })}::jsonb)`,
        ),
        sql`, `,
      )}`,
    );
  }
}

const exactNearest = (db: Database, userId: string, values: number[], limit: number) =>
  queryRows<{ id: string }>(
    db,
    sql`SELECT id FROM memories WHERE app_id = 'default' AND user_id = ${userId} AND expired_at IS NULL
         ORDER BY embedding <=> ${toVectorLiteral(values)}::halfvec LIMIT ${limit}`,
  ).then((rows) => rows.map((row) => row.id));

/** A vector unlike every `vectorOf(i)`, so nothing ties with a memory written at it. */
const unique = (seed: number) =>
  Array.from({ length: DIMENSIONS }, (_, g) => Math.cos((g + 1) * seed * 0.37) + (g % 7 === seed % 7 ? 1 : 0));

/** Words of the text tests, each its own English lexeme. */
const VOCABULARY = (
  "apple river lantern harbor mountain violet quiet garden copper meadow thunder pepper saddle marble orbit " +
  "falcon canyon willow ember glacier tulip compass velvet anchor meteor cactus pillow quartz ribbon tundra " +
  "walrus yonder zenith badger cobalt dagger fennel goblet hazel igloo"
).split(" ");

const query = (userId: string, values: number[], now = new Date()) => ({ appId: "default", userId, values, now });

describe("resident memories on the embedded database", () => {
  let runtime: Runtime;
  let db: Database;
  const dataDir = mkdtempSync(join(tmpdir(), "resident-"));
  const resident = () => new ResidentMemories({ model: MODEL, dimensions: DIMENSIONS, maxBytes: 2 ** 30 });

  beforeAll(async () => {
    runtime = await startTestRuntime({ DATA_DIR: dataDir });
    db = runtime.database.db;
  });
  afterAll(async () => {
    await runtime?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("loads a large user in the background, then finds what an exact scan finds", async () => {
    await insertMemories(db, "large", 0, 6_000);
    const vectors = resident();
    const probe = vectorOf(7);
    // More rows than one read: this query takes the SQL path while the rest loads, and so does the
    // next one, rather than wait for the whole load.
    expect(await vectors.nearest(db, query("large", probe), 400, 10)).toBeUndefined();
    expect(await vectors.nearest(db, query("large", probe), 400, 10)).toBeUndefined();
    expect(await vectors.loaded({ appId: "default", userId: "large" })).toBe(true);
    expect(vectors.usage().memories).toBe(6_000);
    let found = 0;
    for (const i of [3, 77, 512, 1_999, 4_321, 5_998]) {
      const values = vectorOf(i).map((value, g) => value + 0.05 * Math.cos(g * i));
      const exact = await exactNearest(db, "large", values, 10);
      const hits = (await vectors.nearest(db, query("large", values), 400, 10)) ?? [];
      expect(hits.map((hit) => hit.rank)).toEqual(Array.from({ length: hits.length }, (_, k) => k + 1));
      found += hits.filter((hit) => exact.includes(hit.id)).length;
    }
    // Binary-quantised candidates re-ranked: near the exact answer, as the SQL path is.
    expect(found / 60).toBeGreaterThanOrEqual(0.9);
  });

  it("follows every write: new vectors, changed vectors, expiry, deletion and a row put back", async () => {
    const vectors = resident();
    await insertMemories(db, "writes", 0, 50);
    const far = vectorOf(1_000).map((value) => -value);
    const nearestId = async (values: number[]) => (await vectors.nearest(db, query("writes", values), 400, 1))?.[0]?.id;
    // The 8-bit copy may swap near ties, never reach past them.
    expect(await exactNearest(db, "writes", far, 3)).toContain(await nearestId(far));

    // A new memory right on the query.
    await db.execute(
      sql`INSERT INTO memories (id, app_id, user_id, type, content, content_hash, valid_at, embedding, embedding_model)
          VALUES ('00000000-0000-4000-8000-000000000001', 'default', 'writes', 'semantic', 'exact', 'exact', now() - interval '1 day', ${toVectorLiteral(far)}::halfvec, ${MODEL})`,
    );
    expect(await nearestId(far)).toBe("00000000-0000-4000-8000-000000000001");
    // Its vector re-embedded elsewhere.
    await db.execute(
      sql`UPDATE memories SET embedding = ${toVectorLiteral(unique(3))}::halfvec WHERE id = '00000000-0000-4000-8000-000000000001'`,
    );
    expect(await nearestId(far)).not.toBe("00000000-0000-4000-8000-000000000001");
    expect(await nearestId(unique(3))).toBe("00000000-0000-4000-8000-000000000001");
    // Expired: gone.
    await db.execute(sql`UPDATE memories SET expired_at = now() WHERE id = '00000000-0000-4000-8000-000000000001'`);
    expect(await nearestId(unique(3))).not.toBe("00000000-0000-4000-8000-000000000001");
    // Deleted and put back under the same id: the later write wins.
    await db.execute(sql`DELETE FROM memories WHERE id = '00000000-0000-4000-8000-000000000001'`);
    await db.execute(
      sql`INSERT INTO memories (id, app_id, user_id, type, content, content_hash, valid_at, embedding, embedding_model)
          VALUES ('00000000-0000-4000-8000-000000000001', 'default', 'writes', 'semantic', 'back', 'back', now() - interval '1 day', ${toVectorLiteral(far)}::halfvec, ${MODEL})`,
    );
    expect(await nearestId(far)).toBe("00000000-0000-4000-8000-000000000001");
    // Deleted for good.
    await db.execute(sql`DELETE FROM memories WHERE user_id = 'writes' AND content = 'back'`);
    expect(await nearestId(far)).not.toBe("00000000-0000-4000-8000-000000000001");
    expect(vectors.usage().memories).toBe(50);
  });

  it("serves both arms of a recall with one read of the change log, which sees every write before the recall began", async () => {
    const vectors = resident();
    await insertMemories(db, "shared", 0, 50);
    let reads = 0;
    const dialect = new PgDialect();
    // The database as the copy sees it, counting its reads of the change log.
    const counted = new Proxy(db, {
      get(target, property, receiver) {
        if (property !== "execute") return Reflect.get(target, property, receiver);
        return (statement: SQL) => {
          if (dialect.sqlToQuery(statement).sql.includes("FROM memory_deletions d")) reads++;
          return target.execute(statement);
        };
      },
    });
    const far = vectorOf(1_000).map((value) => -value);
    const recall = async (readAfter: number) => {
      const [nearest, words] = await Promise.all([
        vectors.nearest(counted, { ...query("shared", far), readAfter }, 400, 1),
        vectors.matching(counted, { appId: "default", userId: "shared", lexemes: ["exact"], now: new Date(), readAfter }, 0, 5),
      ]);
      return { nearest: nearest?.[0]?.id, words: words?.map((hit) => hit.id) };
    };
    await vectors.nearest(counted, query("shared", far), 400, 1);
    expect(await vectors.loaded({ appId: "default", userId: "shared" })).toBe(true);

    reads = 0;
    expect((await recall(vectors.ticket())).words).toEqual([]);
    expect(reads).toBe(1);
    // A write, then a recall: its one read sees the new memory in both arms.
    await db.execute(
      sql`INSERT INTO memories (id, app_id, user_id, type, content, content_hash, valid_at, embedding, embedding_model)
          VALUES ('00000000-0000-4000-8000-0000000000e1', 'default', 'shared', 'semantic', 'exact', 'exact-shared', now() - interval '1 day', ${toVectorLiteral(far)}::halfvec, ${MODEL})`,
    );
    expect(await recall(vectors.ticket())).toEqual({
      nearest: "00000000-0000-4000-8000-0000000000e1",
      words: ["00000000-0000-4000-8000-0000000000e1"],
    });
    expect(reads).toBe(2);
    // Without a ticket (a caller of one arm), every call reads.
    await vectors.nearest(counted, query("shared", far), 400, 1);
    await vectors.nearest(counted, query("shared", far), 400, 1);
    expect(reads).toBe(4);
  });

  it("does not hear about access counts (the access recorder stays free)", async () => {
    const before = await queryRows<{ seq: string }>(db, sql`SELECT max(change_seq)::text AS seq FROM memories`);
    await db.execute(sql`UPDATE memories SET access_count = access_count + 1, last_accessed_at = now() WHERE user_id = 'writes'`);
    expect(await queryRows<{ seq: string }>(db, sql`SELECT max(change_seq)::text AS seq FROM memories`)).toEqual(before);
  });

  it("judges validity at the query's time, across months", async () => {
    const vectors = resident();
    const start = Date.now();
    const values = unique(11);
    await insertMemories(db, "validity", 0, 20, new Date(start - DAY));
    // True from a month from now, no longer from three months from now.
    await db.execute(
      sql`INSERT INTO memories (id, app_id, user_id, type, content, content_hash, valid_at, invalid_at, embedding, embedding_model)
          VALUES ('00000000-0000-4000-8000-000000000002', 'default', 'validity', 'semantic', 'later', 'later',
                  ${new Date(start + 30 * DAY).toISOString()}::timestamptz, ${new Date(start + 90 * DAY).toISOString()}::timestamptz,
                  ${toVectorLiteral(values)}::halfvec, ${MODEL})`,
    );
    const top = async (at: number) => (await vectors.nearest(db, query("validity", values, new Date(at)), 400, 1))?.[0]?.id;
    expect(await top(start)).not.toBe("00000000-0000-4000-8000-000000000002");
    expect(await top(start + 31 * DAY)).toBe("00000000-0000-4000-8000-000000000002");
    expect(await top(start + 89 * DAY)).toBe("00000000-0000-4000-8000-000000000002");
    expect(await top(start + 91 * DAY)).not.toBe("00000000-0000-4000-8000-000000000002");
    // Types filter: a semantic-only query finds only it, when it is valid.
    const semantic = await vectors.nearest(db, { ...query("validity", values, new Date(start + 60 * DAY)), types: ["semantic"] }, 400, 5);
    expect(semantic?.map((hit) => hit.id)).toEqual(["00000000-0000-4000-8000-000000000002"]);
  });

  it("gives recall the exact similarity and the same answer as the SQL path", async () => {
    const vectors = resident();
    const values = vectorOf(23).map((value, g) => value + 0.1 * Math.sin(g));
    const recall = (settings: { resident?: ResidentMemories }) =>
      recallMemories(
        db,
        { appId: "default", userId: "large", text: "memory", vector: { values, model: MODEL }, limit: 10, now: new Date() },
        settings,
      );
    await vectors.nearest(db, query("large", values), 400, 10);
    await vectors.loaded({ appId: "default", userId: "large" });
    const fromCopy = await recall({ resident: vectors });
    const fromSql = await recall({});
    const exact = await queryRows<{ id: string; similarity: number }>(
      db,
      sql`SELECT id, (1 - (embedding <=> ${toVectorLiteral(values)}::halfvec))::float8 AS similarity FROM memories WHERE id IN ${fromCopy.map((memory) => memory.id)}`,
    );
    for (const memory of fromCopy.filter((recalled) => recalled.vectorRank !== null)) {
      expect(memory.similarity).toBeCloseTo(exact.find((row) => row.id === memory.id)?.similarity ?? Number.NaN, 6);
    }
    const overlap = fromCopy.filter((memory) => fromSql.some((other) => other.id === memory.id)).length;
    expect(overlap).toBeGreaterThanOrEqual(9);
  });

  it("leaves a user larger than the budget to the SQL path", async () => {
    const small = new ResidentMemories({ model: MODEL, dimensions: DIMENSIONS, maxBytes: 10_000 });
    expect(await small.nearest(db, query("writes", vectorOf(1)), 400, 5)).toBeUndefined();
    expect(small.usage().users).toBe(0);
  });

  it("parses the query's words once per recall when the copy cannot answer and SQL ranks the text", async () => {
    const small = new ResidentMemories({ model: MODEL, dimensions: DIMENSIONS, maxBytes: 10_000 });
    const dialect = new PgDialect();
    const parses: string[] = [];
    const counting = new Proxy(db, {
      get: (target, property, receiver) =>
        property === "execute"
          ? (statement: SQL) => {
              const text = dialect.sqlToQuery(statement).sql;
              // The query's words are a parameter; a memory's own words (the superseded check) are a column.
              if (/to_tsvector\('english', \$\d+\)/.test(text)) parses.push(text);
              return target.execute(statement);
            }
          : Reflect.get(target, property, receiver),
    });
    const recalled = await recallMemories(
      counting,
      {
        appId: "default",
        userId: "writes",
        text: "memory seven",
        vector: { values: vectorOf(7), model: MODEL },
        limit: 5,
        now: new Date(),
      },
      { resident: small },
    );
    expect(recalled.length).toBeGreaterThan(0);
    expect(small.usage().users).toBe(0);
    expect(parses).toHaveLength(1);
  });

  it("fails one recall when the database drops, and serves the next", async () => {
    const vectors = resident();
    await vectors.nearest(db, query("writes", vectorOf(1)), 400, 5);
    let failing = true;
    const flaky = new Proxy(db, {
      get: (target, property, receiver) =>
        property === "execute" && failing ? () => Promise.reject(new Error("connection dropped")) : Reflect.get(target, property, receiver),
    });
    await expect(vectors.nearest(flaky, query("writes", vectorOf(1)), 400, 5)).rejects.toThrow("connection dropped");
    failing = false;
    expect(await vectors.nearest(flaky, query("writes", vectorOf(1)), 400, 5)).toHaveLength(5);
  });

  it("ranks words as the SQL path does, over exactly the memories a query may see", async () => {
    // 400 memories of 2-11 words from a vocabulary of 40: some not embedded yet, some semantic, some expired.
    let state = 7;
    const next = (bound: number) => {
      state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
      return Math.floor((state / 2 ** 32) * bound);
    };
    const rows = Array.from({ length: 400 }, (_, i) => {
      const words = Array.from({ length: 2 + next(10) }, () => VOCABULARY[Math.min(next(40), next(40))] as string);
      return sql`(gen_random_uuid(), 'default', 'words', ${i % 5 === 0 ? "semantic" : "episodic"}, ${words.join(" ")}, ${`words-${i}`},
                  now() - interval '1 day', ${i % 3 === 0 ? null : toVectorLiteral(vectorOf(i))}::halfvec, ${i % 3 === 0 ? null : MODEL},
                  ${i % 11 === 0 ? sql`now()` : null}::timestamptz)`;
    });
    await db.execute(
      sql`INSERT INTO memories (id, app_id, user_id, type, content, content_hash, valid_at, embedding, embedding_model, expired_at) VALUES ${sql.join(rows, sql`, `)}`,
    );
    const copy = resident();
    const texts = ["apple and river", "quiet lantern over the harbor", "mountain mountain", "violet", "zebra unknown"];
    for (const text of texts)
      for (const settings of [{ minTextCoverage: 0 }, { minTextCoverage: 0.4 }])
        for (const types of [undefined, ["semantic" as const]]) {
          const ask = (resident?: ResidentMemories) =>
            recallMemories(
              db,
              { appId: "default", userId: "words", text, limit: 400, candidates: 400, now: new Date(), ...(types ? { types } : {}) },
              { ...settings, ...(resident ? { resident } : {}) },
            );
          const fromSql = await ask();
          const fromCopy = await ask(copy);
          // The same memories, each matching the same share of the query.
          const coverage = (recalled: typeof fromSql) => new Map(recalled.map((memory) => [memory.id, memory.coverage.toFixed(9)]));
          expect(coverage(fromCopy)).toEqual(coverage(fromSql));
          // In the same order, up to ties: at each text rank both hold a memory of the same BM25 score.
          const [lexemes] = await queryRows<{ lexemes: string[] }>(
            db,
            sql`SELECT tsvector_to_array(to_tsvector('english', ${text})) AS lexemes`,
          );
          const scored = await copy.matching(
            db,
            { appId: "default", userId: "words", lexemes: lexemes?.lexemes ?? [], now: new Date(), ...(types ? { types } : {}) },
            settings.minTextCoverage,
            400,
          );
          const score = new Map(scored?.map((hit) => [hit.id, hit.score.toFixed(9)]));
          const byRank = (recalled: typeof fromSql) =>
            recalled.sort((a, b) => (a.textRank ?? 0) - (b.textRank ?? 0)).map((memory) => score.get(memory.id));
          expect(byRank(fromCopy)).toEqual(byRank(fromSql));
          if (text !== "zebra unknown" && !types) expect(fromCopy.length).toBeGreaterThan(0);
        }
  });

  it("finds a memory by its words before it has a vector, and follows changes to its words", async () => {
    const copy = resident();
    const id = "00000000-0000-4000-8000-000000000003";
    const found = async (word: string) =>
      (await copy.matching(db, { appId: "default", userId: "writes", lexemes: [word], now: new Date() }, 0, 10))?.map((hit) => hit.id);
    await db.execute(
      sql`INSERT INTO memories (id, app_id, user_id, type, content, content_hash, valid_at)
          VALUES (${id}, 'default', 'writes', 'semantic', 'the ferry to zanzibar', 'zanzibar', now() - interval '1 day')`,
    );
    expect(await found("zanzibar")).toEqual([id]);
    await db.execute(sql`UPDATE memories SET content = 'climbing kilimanjaro' WHERE id = ${id}`);
    expect(await found("zanzibar")).toEqual([]);
    expect(await found("kilimanjaro")).toEqual([id]);
    await db.execute(sql`UPDATE memories SET expired_at = now() WHERE id = ${id}`);
    expect(await found("kilimanjaro")).toEqual([]);
    await db.execute(sql`DELETE FROM memories WHERE id = ${id}`);
  });
});
