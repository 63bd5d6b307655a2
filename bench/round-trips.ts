import { type Runtime, startRuntime } from "../functions/node-runtime.js";
import { waitForSettled } from "../functions/wait-for-settled.js";
import { parseEnv } from "../src/config/env.js";
import { countStatementWaves } from "../src/db/statement-waves.js";
import { postHistory } from "./bulk-import.js";
import { startDelayProxy } from "./delay-proxy.js";
import { generateHistory } from "./generated-history.js";
import { percentile, type Summary, summarize } from "./stats.js";

const json = { "content-type": "application/json" };

/** Questions about the generated history (bench/generated-history.ts), asked in turn. */
const QUESTIONS = [
  "Where do I live now?",
  "What is my pet called and what did it chew?",
  "Which hobby did I start learning?",
  "What did my sister and I cook together?",
  "What do I usually have for dinner?",
  "What do I love doing on my days off?",
  "What job do I have?",
  "What was the weather like last week?",
];

/** One way of asking the database, next to it and `delayMs` away. */
export interface RoundTripArm {
  /** RECALL_PLAN of the service. */
  plan: "auto" | "channels";
  near: Summary;
  far: Summary;
  /** far p50 − near p50, ms. */
  addedMs: number;
  /** Most sequential waits on the database of one request, and their median (`countStatementWaves`). */
  waves: { max: number; p50: number };
  statements: { p50: number };
}

export interface RoundTripsReport {
  delayMs: number;
  turns: number;
  sessions: number;
  maxTokens: number;
  arms: RoundTripArm[];
}

/**
 * Context windows for one user of `turns` turns (generated, 10 sessions), with history, through
 * services on the same Postgres: two next to it and two through a loopback proxy that delivers
 * every chunk from Postgres `delayMs` late (a database "a region away"), each pair once with the
 * composed recall (RECALL_PLAN=auto) and once channel by channel (`channels`, the path before it).
 * Requests alternate between the four in rotating order, so all meet the same machine load; the
 * sequential waits of each request are counted as the round-trip test counts them.
 *
 * `seeder` is a service on that Postgres (its pipeline running), `env` the settings it was started
 * with (DATABASE_URL among them), from which the four measured services start without a pipeline.
 *
 * @example
 * const report = await benchRoundTrips(bench.runtime, bench.raw, { delayMs: 20, iterations: 60 });
 */
export async function benchRoundTrips(
  seeder: Runtime,
  env: Record<string, string | undefined>,
  options: { delayMs: number; iterations: number; turns?: number; maxTokens?: number },
): Promise<RoundTripsReport> {
  const databaseUrl = env["DATABASE_URL"];
  if (!databaseUrl) throw new Error("the round-trip benchmark needs a Postgres (--postgres URL)");
  const sessions = 10;
  const turns = options.turns ?? 200;
  const maxTokens = options.maxTokens ?? 1000;
  const userId = "bench-round-trips";
  const runtimes: Runtime[] = [];
  const target = new URL(databaseUrl);
  const proxy = await startDelayProxy({ host: target.hostname, port: Number(target.port || 5432) }, options.delayMs);
  try {
    const lastSession = await postHistory(seeder, userId, generateHistory({ sessions, turnsPerSession: turns / sessions, seed: 11 }));
    await waitForSettled(seeder.app, userId, { intervalMs: 200, timeoutMs: 600_000 });
    const serve = async (plan: RoundTripArm["plan"], far: boolean) => {
      const runtime = await startRuntime(
        parseEnv({
          ...env,
          ...(far ? { DATABASE_URL: proxy.url(databaseUrl) } : {}),
          RECALL_PLAN: plan,
          EXECUTOR_ENABLED: "false",
        }),
      );
      runtimes.push(runtime);
      return runtime;
    };
    const plans = ["auto", "channels"] as const;
    const services: { plan: RoundTripArm["plan"]; far: boolean; runtime: Runtime }[] = [];
    for (const plan of plans) for (const far of [false, true]) services.push({ plan, far, runtime: await serve(plan, far) });
    const samples = services.map(() => ({ ms: [] as number[], waves: [] as number[], statements: [] as number[] }));
    let asked = 0;
    const window = async (runtime: Runtime) => {
      const body = JSON.stringify({
        user_id: userId,
        session_id: lastSession,
        query: QUESTIONS[asked++ % QUESTIONS.length],
        max_tokens: maxTokens,
        history: { strategy: "summarize", max_turns: 4 },
      });
      const started = performance.now();
      const counted = await countStatementWaves(async () => runtime.app.request("/v1/context", { method: "POST", headers: json, body }));
      const ms = performance.now() - started;
      if (counted.result.status !== 200) throw new Error(`context failed: ${counted.result.status} ${await counted.result.text()}`);
      await counted.result.arrayBuffer();
      return { ms, waves: counted.waves, statements: counted.statements };
    };
    // Warm-up: each service's pool holds its connections, each query's vector is cached alike.
    for (let i = 0; i < QUESTIONS.length + 2; i++) for (const service of services) await window(service.runtime);
    for (let i = 0; i < options.iterations; i++) {
      for (let k = 0; k < services.length; k++) {
        const index = (i + k) % services.length;
        const measured = await window((services[index] as (typeof services)[number]).runtime);
        const into = samples[index] as (typeof samples)[number];
        into.ms.push(measured.ms);
        into.waves.push(measured.waves);
        into.statements.push(measured.statements);
      }
    }
    const arms = plans.map((plan): RoundTripArm => {
      const at = (far: boolean) => services.findIndex((service) => service.plan === plan && service.far === far);
      const near = samples[at(false)] as (typeof samples)[number];
      const far = samples[at(true)] as (typeof samples)[number];
      const nearSummary = summarize(`context, ${plan}, next to Postgres`, near.ms);
      const farSummary = summarize(`context, ${plan}, Postgres ${options.delayMs} ms away`, far.ms);
      const waves = [...near.waves, ...far.waves];
      return {
        plan,
        near: nearSummary,
        far: farSummary,
        addedMs: farSummary.p50 - nearSummary.p50,
        waves: { max: Math.max(...waves), p50: percentile(waves, 50) },
        statements: { p50: percentile([...near.statements, ...far.statements], 50) },
      };
    });
    return { delayMs: options.delayMs, turns, sessions, maxTokens, arms };
  } finally {
    for (const runtime of runtimes.reverse()) await runtime.close();
    await proxy.close();
  }
}

export function printRoundTrips(label: string, report: RoundTripsReport): void {
  console.log(
    `\ncontext windows (${report.maxTokens} tokens, history summarized) for a user of ${report.turns} turns in ${report.sessions} sessions, ${label}: next to Postgres and through a proxy ${report.delayMs} ms away, alternating`,
  );
  const format = (value: number) => value.toFixed(1).padStart(8);
  console.log(`${"measurement".padEnd(48)} ${"n".padStart(5)} ${"p50 ms".padStart(8)} ${"p95 ms".padStart(8)} ${"p99 ms".padStart(8)}`);
  for (const arm of report.arms) {
    for (const row of [arm.near, arm.far])
      console.log(`${row.name.padEnd(48)} ${String(row.n).padStart(5)} ${format(row.p50)} ${format(row.p95)} ${format(row.p99)}`);
  }
  for (const arm of report.arms)
    console.log(
      `RECALL_PLAN=${arm.plan}: ${report.delayMs} ms away costs ${arm.addedMs.toFixed(1)} ms more at p50${arm.plan === "auto" ? " (target ≤ 50)" : ""}; sequential waits per request p50 ${arm.waves.p50}, max ${arm.waves.max}; statements p50 ${arm.statements.p50}`,
    );
}
