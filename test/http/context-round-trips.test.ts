import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DelayProxy, startDelayProxy } from "../../bench/delay-proxy.js";
import type { Runtime } from "../../functions/node-runtime.js";
import { countStatementWaves } from "../../src/db/statement-waves.js";
import { freshDatabase, onPostgres, type TestDatabase } from "../fixtures/database.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

/**
 * How many times one context request waits on the database in sequence (statements sent while
 * another of the request's is in flight count once). A Postgres a region away costs a round trip
 * per wait, so a window must take at most two: the session with its history at once, and recall
 * (rankings, fusion, rows, following turns, later statements, source turns) once the query is embedded.
 */
const USER = "rounds-user";
/** Every read past the ranking a window makes, on: later statements, facts' source turns, the kind channel, coverage-weighted fusion. */
const WINDOW_SETTINGS = {
  CONTEXT_LATER_SHARE: "0.1",
  CONTEXT_SOURCE_TURNS: "2",
  CONTEXT_KIND_RECALL: "true",
  CONTEXT_ASKER_FIRST: "true",
  RECALL_COVERAGE_WEIGHTED: "true",
  LOG_LEVEL: "error",
};
let database: TestDatabase;
let seeder: Runtime;
let proxy: DelayProxy;
/** The service reaching the same database through a proxy that answers 20 ms late: each sequential wait costs a round trip. */
let far: Runtime;
/** The same, asking the database channel by channel (RECALL_PLAN=channels, the path before the composed plan). */
let farByChannels: Runtime;
let sessionId: string;

beforeAll(async () => {
  if (!onPostgres) return;
  database = await freshDatabase();
  seeder = await startTestRuntime({ ...database.env, ...WINDOW_SETTINGS });
  const earlier = await createSession(seeder.app, USER, { started_at: "2025-01-05T10:00:00Z" });
  const topics = ["my sister's wedding in Porto", "a new road bike", "the leaking kitchen tap", "learning to bake rye bread"];
  await call(seeder.app, "POST", `/v1/sessions/${earlier}/events`, {
    events: topics.flatMap((topic, index) => [
      message("user", `I have been thinking about ${topic} all week.`, { occurred_at: `2025-01-05T10:0${index}:00Z` }),
      message("assistant", `Tell me more about ${topic}.`, { occurred_at: `2025-01-05T10:0${index}:30Z` }),
    ]),
  });
  await call(seeder.app, "POST", `/v1/sessions/${earlier}/end`);
  sessionId = await createSession(seeder.app, USER, { started_at: "2025-02-10T10:00:00Z" });
  await call(seeder.app, "POST", `/v1/sessions/${sessionId}/events`, {
    events: [
      message("user", "I live in Leeds and I work as a nurse.", { occurred_at: "2025-02-10T10:00:00Z" }),
      message("assistant", "Noted: Leeds, and nursing.", { occurred_at: "2025-02-10T10:00:30Z" }),
      message("user", "The road bike arrived, it is a green steel frame.", { occurred_at: "2025-02-10T10:01:00Z" }),
      message("assistant", "Enjoy the rides!", { occurred_at: "2025-02-10T10:01:30Z" }),
      message("user", "I really love long rides on the road bike before work.", { occurred_at: "2025-02-10T10:02:00Z" }),
      message("assistant", "Early rides are the best.", { occurred_at: "2025-02-10T10:02:30Z" }),
    ],
  });
  await waitForSettled(seeder.app, USER);
  const url = new URL(database.url as string);
  proxy = await startDelayProxy({ host: url.hostname, port: Number(url.port) }, 20);
  far = await startTestRuntime({ DATABASE_URL: proxy.url(database.url as string), EXECUTOR_ENABLED: "false", ...WINDOW_SETTINGS });
  farByChannels = await startTestRuntime({
    DATABASE_URL: proxy.url(database.url as string),
    EXECUTOR_ENABLED: "false",
    RECALL_PLAN: "channels",
    ...WINDOW_SETTINGS,
  });
});
afterAll(async () => {
  await far?.close();
  await farByChannels?.close();
  await proxy?.close();
  await seeder?.close();
  await database?.drop();
});

const windowRequest = (history: string) => ({
  user_id: USER,
  session_id: sessionId,
  // A question about a taste (the kind channel ranks too) and about the asker.
  query: "What do I love about my road bike?",
  max_tokens: 1000,
  explain: true,
  history: { strategy: history, max_turns: 2 },
});

async function waitsOfOneWindow(history: string, runtime = far) {
  const { result, ...counted } = await countStatementWaves(() => call(runtime.app, "POST", "/v1/context", windowRequest(history)));
  expect(result.status).toBe(200);
  const body = result.body as { sections: { name: string; items: { text: string }[] }[] };
  return { ...counted, texts: body.sections.flatMap((section) => section.items.map((item) => item.text)) };
}

describe.runIf(onPostgres)("one context request's sequential waits on the database", () => {
  it.each(["none", "summarize"])("history %s: at most two on a server", async (history) => {
    // The first request embeds the query; the second finds its vector cached.
    for (const round of ["embedded", "cached"]) {
      const { waves, rounds, sent, texts } = await waitsOfOneWindow(history);
      expect(waves, `${round} query: ${JSON.stringify(sent)}`).toBeLessThanOrEqual(2);
      expect(rounds, `${round} query: ${JSON.stringify(sent)}`).toBeLessThanOrEqual(2);
      expect(texts.some((text) => text.includes("long rides on the road bike"))).toBe(true);
    }
  });

  it("channel by channel the same window waits more often: the count can fail", async () => {
    const composed = await waitsOfOneWindow("summarize");
    const { waves, rounds, texts } = await waitsOfOneWindow("summarize", farByChannels);
    expect(rounds).toBeGreaterThan(2);
    expect(waves).toBeGreaterThan(2);
    // The same window either way.
    expect(texts).toEqual(composed.texts);
  });
});
