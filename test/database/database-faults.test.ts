import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { type Runtime, startRuntime } from "../../functions/node-runtime.js";
import { queryRows } from "../../src/db/database.js";
import { onPostgres } from "../fixtures/database.js";
import { admin } from "../fixtures/global-setup.js";
import { keyed } from "../fixtures/keyed.js";
import { type Cluster, startCluster } from "../fixtures/postgres-cluster.js";
import { call, createSession, message, startTestRuntime, testEnv, waitForSettled } from "../fixtures/runtime.js";

/**
 * A real Postgres goes away: backends are terminated (a failover, an idle-connection reaper), the
 * server restarts. The process must stay up, answer 503 with `retry-after` (never 500), lose no
 * acknowledged event, store none twice, and let the pipeline resume by itself.
 */
let runtime: Runtime | undefined;
let cluster: Cluster | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
  await cluster?.stop();
  cluster = undefined;
});

/** Pipeline settings that recover quickly: leases of dead connections run out fast, the sweep runs every second. */
const RECOVERING = { EXECUTOR_LEASE: "2s", SWEEP_CRON: "* * * * * *", SWEEP_MIN_AGE: "1s", DATABASE_CONNECT_TIMEOUT: "2s" };

interface Traffic {
  statuses: number[];
  acknowledged: string[];
  retryAfterMissing: number;
}

/**
 * `clients` clients appending `perClient` events each, one at a time, as a careful client does:
 * an idempotency key per event, and a 503 sent again after a moment until it is acknowledged.
 */
/**
 * `clients` appending at once, each at least `perClient` events and, when `until` is given, on
 * until it settles: traffic that certainly spans a fault, however fast the machine.
 */
async function traffic(
  runtime: Runtime,
  sessionId: string,
  clients: number,
  perClient: number,
  until?: Promise<unknown>,
): Promise<Traffic> {
  const result: Traffic = { statuses: [], acknowledged: [], retryAfterMissing: 0 };
  let settled = until === undefined;
  void until?.finally(() => {
    settled = true;
  });
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let index = 0; index < perClient || !settled; index++) {
        const content = `client ${client} says ${index}`;
        const body = { events: [message("user", content, { idempotency_key: `${client}:${index}` })] };
        for (;;) {
          const answer = await keyed(runtime.app, undefined, "POST", `/v1/sessions/${sessionId}/events`, body);
          result.statuses.push(answer.status);
          if (answer.status === 201) break;
          if (!answer.headers.get("retry-after")) result.retryAfterMissing++;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        result.acknowledged.push(content);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }),
  );
  return result;
}

async function expectLogHoldsExactly(runtime: Runtime, sessionId: string, acknowledged: string[]): Promise<void> {
  const answer = await call(runtime.app, "GET", `/v1/sessions/${sessionId}/events?limit=1000`);
  expect({ status: answer.status, body: answer.status === 200 ? "events" : answer.body }).toEqual({ status: 200, body: "events" });
  const log = answer.body.events as {
    seq: number;
    content: string;
  }[];
  expect(log.map((event) => event.seq)).toEqual(Array.from({ length: acknowledged.length }, (_, index) => index + 1));
  expect(log.map((event) => event.content).sort()).toEqual([...acknowledged].sort());
}

/** Until none of `pids` is a live backend; their sockets' close reaches the pool before the answer saying so. */
async function waitForBackendsGone(url: string, pids: Set<number>): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const alive = await admin(url, async (client) => {
      const { rows } = await client.query<{ alive: number }>(
        "SELECT count(*)::int AS alive FROM pg_stat_activity WHERE pid = ANY($1::int[])",
        [[...pids]],
      );
      return rows[0]?.alive ?? 0;
    });
    if (alive === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("terminated backends still alive after 5 s");
}

describe.runIf(onPostgres)("database faults on a real Postgres", () => {
  it("terminated backends mid-traffic: the process stays up, 503 only, every acknowledged event once, the pipeline resumes", async () => {
    runtime = await startTestRuntime({ ...RECOVERING, DATABASE_POOL_MAX: "6" });
    const started = runtime;
    const sessionId = await createSession(started.app, "terminated");
    const [{ datname }] = (await queryRows<{ datname: string }>(started.database.db, sql`SELECT current_database() AS datname`)) as [
      { datname: string },
    ];
    const url = process.env["TEST_DATABASE_URL"] as string;
    const terminatedPids = new Set<number>();
    let killing = true;
    const killer = (async () => {
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 120));
        if (!killing) break;
        const pids = await admin(url, async (client) => {
          const { rows } = await client.query<{ pid: number; terminated: boolean }>(
            "SELECT pid, pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
            [datname],
          );
          return rows.filter((row) => row.terminated).map((row) => row.pid);
        });
        for (const pid of pids) terminatedPids.add(pid);
      }
    })();
    const result = await traffic(started, sessionId, 4, 25);
    killing = false;
    await killer;
    // pg_terminate_backend only signals: the last round's backends may still be exiting, and a
    // pooled connection to one of them fails its next query. The claims below are about the
    // service once the terminations have landed, so wait for every terminated backend to be gone.
    await waitForBackendsGone(url, terminatedPids);

    const terminated = terminatedPids.size;
    expect(terminated).toBeGreaterThan(10);
    expect(new Set(result.statuses)).toEqual(new Set(result.statuses.filter((status) => status === 201 || status === 503)));
    expect(result.statuses.filter((status) => status === 503).length).toBeGreaterThan(0);
    expect(result.retryAfterMissing).toBe(0);
    await expectLogHoldsExactly(started, sessionId, result.acknowledged);
    await waitForSettled(started.app, "terminated");
    expect((await call(started.app, "GET", `/v1/sessions/${sessionId}`)).body).toMatchObject({ last_seq: 100, replayed_seq: 100 });
    // No connection leaked by the failures: a pool of six serves a burst twice its size at once.
    const burst = await Promise.all(Array.from({ length: 12 }, () => call(started.app, "GET", `/v1/sessions/${sessionId}`)));
    expect(burst.map((answer) => answer.status)).toEqual(Array(12).fill(200));
  });

  it("terminated backends between context windows: the recall's named statement is prepared again on the new connections", async () => {
    // One connection: the statements it prepared are the ones pg_prepared_statements lists. Recall
    // channel by channel: the composed plan (RECALL_PLAN=auto) reads its rows in its one simple
    // query and prepares nothing; the channels' read of the rows is the named statement here.
    runtime = await startTestRuntime({ ...RECOVERING, DATABASE_POOL_MAX: "1", RECALL_PLAN: "channels" });
    const started = runtime;
    await call(started.app, "POST", "/v1/memories", { user_id: "prepared", type: "insight", content: "Prepared likes tandem bicycles." });
    const context = () => call(started.app, "POST", "/v1/context", { user_id: "prepared", query: "tandem bicycles", max_tokens: 300 });
    const memoriesOf = (answer: { body: { sections: { kind: string; items: { text: string }[] }[] } }) =>
      answer.body.sections.find((section) => section.kind === "memories")?.items.map((item) => item.text);
    const first = [await context(), await context()];
    expect(first.map((answer) => answer.status)).toEqual([200, 200]);
    const [prepared] = await queryRows<{ n: number }>(started.database.db, sql`SELECT count(*)::int AS n FROM pg_prepared_statements`);
    expect(prepared?.n).toBe(1);
    const [{ datname }] = (await queryRows<{ datname: string }>(started.database.db, sql`SELECT current_database() AS datname`)) as [
      { datname: string },
    ];
    const url = process.env["TEST_DATABASE_URL"] as string;
    const pids = await admin(url, async (client) => {
      const { rows } = await client.query<{ pid: number; terminated: boolean }>(
        "SELECT pid, pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
        [datname],
      );
      return new Set(rows.filter((row) => row.terminated).map((row) => row.pid));
    });
    expect(pids.size).toBeGreaterThan(0);
    await waitForBackendsGone(url, pids);
    // A dead connection fails its next request with 503; after that, the same answer as before.
    let answer = await context();
    for (let attempt = 0; answer.status === 503 && attempt < 10; attempt++) answer = await context();
    expect(answer.status).toBe(200);
    expect(memoriesOf(answer)).toEqual(memoriesOf(first[0] as Parameters<typeof memoriesOf>[0]));
    expect(memoriesOf(answer)?.[0]).toContain("tandem bicycles");
    const [again] = await queryRows<{ n: number }>(started.database.db, sql`SELECT count(*)::int AS n FROM pg_prepared_statements`);
    expect(again?.n).toBe(1);
  });

  it("a Postgres restart mid-traffic: the process stays up, every acknowledged event once, the pipeline resumes", async () => {
    cluster = await startCluster();
    runtime = await startRuntime(testEnv({ ...RECOVERING, DATABASE_URL: cluster.url }));
    const started = runtime;
    const sessionId = await createSession(started.app, "restarted");
    // The restart begins once traffic is flowing, and traffic goes on until the server is back:
    // with a fixed count, a quick machine had finished its appends before the restart cut anything.
    let restarted: (value: unknown) => void = () => undefined;
    const back = new Promise((resolve) => {
      restarted = resolve;
    });
    const running = traffic(started, sessionId, 3, 30, back);
    await new Promise((resolve) => setTimeout(resolve, 200));
    try {
      await cluster.restart();
      const down = await call(started.app, "GET", "/healthz");
      expect([200, 503]).toContain(down.status);
    } finally {
      restarted(undefined);
    }
    const result = await running;

    expect(result.statuses.every((status) => status === 201 || status === 503)).toBe(true);
    // The restart did hit requests in flight, and they were told when to come back.
    expect(result.statuses.filter((status) => status === 503).length).toBeGreaterThan(0);
    expect(result.retryAfterMissing).toBe(0);
    await expectLogHoldsExactly(started, sessionId, result.acknowledged);
    await waitForSettled(started.app, "restarted");
    const total = result.acknowledged.length;
    expect(total).toBeGreaterThanOrEqual(90);
    expect((await call(started.app, "GET", `/v1/sessions/${sessionId}`)).body).toMatchObject({ last_seq: total, replayed_seq: total });
    expect((await call(started.app, "GET", "/healthz")).status).toBe(200);
  });
});
