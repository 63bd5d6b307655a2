import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectDatabase } from "../../src/db/connect.js";
import { isTransactionConflict } from "../../src/db/connection-errors.js";
import { type DatabaseHandle, queryRows } from "../../src/db/database.js";
import { AccessRecorder } from "../../src/memory/lifecycle/access-recorder.js";
import { runDecay } from "../../src/memory/lifecycle/decay.js";
import { DecayParametersSchema } from "../../src/memory/lifecycle/retention.js";
import { systemClock } from "../../src/util/clock.js";
import { freshDatabase, onPostgres, type TestDatabase } from "../fixtures/database.js";

const USER = "lock-order";
const TURNS = 20_000;
const TURNS_PER_SUMMARY = 10;
const DAY_MS = 86_400_000;
/** Decay and access recording side by side for this long. */
const RUN_MS = 60_000;
/** Flushes that overlap: the recorders of several processes on one database, and a flush still retrying. */
const RECORDERS = 6;
const IDS_PER_RECORD = 400;

const turnId = (i: number) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`;

/**
 * Every statement that changes several memories locks them in one order (ascending id), and the
 * access recorder never waits for a row another transaction holds. A decay pass over the whole
 * store (no user lock) forgets thousands of rows a pass while recorders flush access counts of
 * random rows of the same memories, for a minute, on a real Postgres (PGlite has one connection:
 * nothing there ever waits for a row lock). No deadlock may happen, and every recorded access must
 * be counted — the forgotten rows' included (they stay until purged).
 */
describe.runIf(onPostgres)("one lock order for the memories' multi-row writers", () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  const started = Date.now();

  beforeAll(async () => {
    database = await freshDatabase();
    handle = await connectDatabase({ url: database.url as string, poolMax: 12 });
    // Turns last used on every day of the two years before now, each quoted by a kept summary (so
    // decay may forget it), and the summaries themselves, important enough to stay.
    await handle.db.execute(sql`
      INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash, importance, valid_at, created_at, last_accessed_at, metadata)
      SELECT ('00000000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid, 'default', ${USER}, 'episodic', 'turn',
             'user: turn ' || i || ' about the harbour', md5('turn ' || i), 0.3, t, t, t, '{"origin": "log"}'::jsonb
        FROM generate_series(1, ${TURNS}) AS i,
             LATERAL (SELECT ${new Date(started).toISOString()}::timestamptz - make_interval(days => i % 730) AS t) AS at`);
    await handle.db.execute(sql`
      INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash, importance, metadata)
      SELECT md5('summary ' || g)::uuid, 'default', ${USER}, 'episodic', 'summary',
             string_agg('turn ' || i || ' about the harbour', '; ' ORDER BY i), md5('summary ' || g), 0.9, '{"origin": "log"}'::jsonb
        FROM generate_series(1, ${TURNS}) AS i, LATERAL (SELECT (i - 1) / ${TURNS_PER_SUMMARY} AS g) AS grouped
       GROUP BY g`);
    await handle.db.execute(sql`
      INSERT INTO memory_sources (memory_id, event_id, session_id, seq)
      SELECT m.id, md5('event ' || i)::uuid, md5('session')::uuid, i
        FROM generate_series(1, ${TURNS}) AS i,
             LATERAL (VALUES (('00000000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid),
                             (md5('summary ' || ((i - 1) / ${TURNS_PER_SUMMARY}))::uuid)) AS m(id)`);
    await handle.db.execute(sql`ANALYZE memories`);
    await handle.db.execute(sql`ANALYZE memory_sources`);
  }, 120_000);

  afterAll(async () => {
    await handle?.close();
    await database?.drop();
  });

  it("decays and records accesses at once for a minute with no deadlock and no access count lost", async () => {
    const deadlocksBefore = await deadlocks(database.url as string);
    const deadline = Date.now() + RUN_MS;
    let recorded = 0;
    const failures: string[] = [];
    const recorders = Array.from({ length: RECORDERS }, async (_, r) => {
      const recorder = new AccessRecorder(handle.db, systemClock, 20);
      for (let round = 0; Date.now() < deadline; round++) {
        const ids = Array.from({ length: IDS_PER_RECORD }, (_, i) => turnId(1 + ((round * 7919 + i * 104_729 + r * 15_485_863) % TURNS)));
        recorded += ids.length;
        await recorder.record(ids).catch((error: unknown) => failures.push(`record: ${firstLine(error)}`));
      }
    });
    // The scheduled pass (every user, no user lock), on a clock that moves 12 days a pass: each
    // pass finds the turns of another twelve days gone stale. The quota forgets half the store in
    // its first passes, in one statement each.
    const parameters = DecayParametersSchema.parse({ quota: TURNS / 2, purge_after_days: 3650 });
    let passes = 0;
    const decay = (async () => {
      for (let now = started - 700 * DAY_MS; Date.now() < deadline; now += 12 * DAY_MS) {
        await runDecay(handle.db, {}, parameters, false, new Date(now), 500).catch((error: unknown) => {
          if (!isTransactionConflict(error)) throw error;
          failures.push(`decay: ${firstLine(error)}`);
        });
        passes++;
      }
    })();
    await Promise.all([...recorders, decay]);

    const [counted] = await queryRows<{ accesses: number; forgotten: number }>(
      handle.db,
      sql`SELECT coalesce(sum(access_count), 0)::int AS accesses, count(*) FILTER (WHERE expired_at IS NOT NULL)::int AS forgotten
            FROM memories WHERE user_id = ${USER} AND subtype = 'turn'`,
    );
    const seen = {
      deadlocks: (await deadlocks(database.url as string)) - deadlocksBefore,
      failures: failures.slice(0, 3),
      lost: recorded - Number(counted?.accesses),
    };
    expect(seen).toEqual({ deadlocks: 0, failures: [], lost: 0 });
    // The two really ran side by side: passes that forgot thousands of rows.
    expect(passes).toBeGreaterThan(3);
    expect(counted?.forgotten).toBeGreaterThan(TURNS / 10);
  }, 240_000);
});

/** Deadlocks Postgres detected in this database, read through a connection of its own once the pool's backends have reported. */
async function deadlocks(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // A backend reports its counters when it goes idle, at most once a second.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await client.query("SELECT pg_stat_clear_snapshot()");
    const result = await client.query<{ deadlocks: string }>("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()");
    return Number(result.rows[0]?.deadlocks ?? 0);
  } finally {
    await client.end();
  }
}

/** What a failure says, without the statement text drizzle puts first. */
function firstLine(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return String(cause instanceof Error ? cause.message : cause).split("\n")[0] as string;
}
