import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { parseEnv } from "../../src/config/env.js";
import { recallMemories } from "../../src/memory/recall/hybrid-recall.js";
import { call, createSession, startTestRuntime } from "../fixtures/runtime.js";

const USER = "neighbour-user";

describe("recall lifts a turn beside a well-ranked turn of its session (CONTEXT_NEIGHBOUR_WEIGHT)", () => {
  let runtime: Runtime;
  let trip: string;
  let other: string;
  const addTurn = async (sessionId: string | null, seq: number | null, content: string, subtype = "turn") => {
    await runtime.database.db.execute(
      sql`INSERT INTO memories (id, app_id, user_id, session_id, type, subtype, content, content_hash, valid_at, metadata)
          VALUES (gen_random_uuid(), 'default', ${USER}, ${sessionId}, 'episodic', ${subtype}, ${content}, ${`${content}-${Math.random()}`},
                  now() - interval '1 hour', ${JSON.stringify(seq === null ? {} : { seq })}::jsonb)`,
    );
  };
  const recall = (text: string, neighbourWeight: number) =>
    recallMemories(runtime.database.db, { appId: "default", userId: USER, text, limit: 10, now: new Date() }, { neighbourWeight });

  beforeAll(async () => {
    runtime = await startTestRuntime({ LOG_LEVEL: "error" });
    trip = await createSession(runtime.app, USER);
    other = await createSession(runtime.app, USER);
    // The question's telling words are in one turn; the answer, the turn after it, shares one common word.
    await addTurn(trip, 1, "How was your holiday in Kyoto last spring?");
    await addTurn(trip, 2, "It was lovely, the temples were quiet and my sister came along for the whole trip.");
    await addTurn(trip, 5, "My sister also plays chess.");
    // Shorter turns with the same common word, none beside a hit — one at seq 2 of another session.
    await addTurn(other, 2, "My sister is a nurse.");
    await addTurn(other, 7, "My sister bakes.");
    await addTurn(other, 9, "Sister stories again.");
    // Unrelated turns, so that "sister" is a telling word of this corpus.
    for (const [index, topic] of ["gardening", "taxes", "running shoes", "a new laptop", "rainy weather", "jazz records"].entries())
      await addTurn(other, 20 + index * 2, `We talked about ${topic}.`);
    // Not a turn: never a neighbour, never lifted.
    await addTurn(trip, null, "Summary: my sister and I talked.", "summary");
  });
  afterAll(() => runtime?.close());

  it("ranks the answer right after the question it follows, and only then", async () => {
    const query = "holiday in Kyoto with my sister";
    const plain = await recall(query, 0);
    const answer = "It was lovely, the temples were quiet and my sister came along for the whole trip.";
    // BM25 alone: the long answer matches only "sister", and shorter turns with that word beat it.
    expect(plain[0]?.content).toBe("How was your holiday in Kyoto last spring?");
    expect(plain.findIndex((memory) => memory.content === answer)).toBeGreaterThan(2);
    expect(plain.every((memory) => memory.neighbourBoost === 0 && memory.score === memory.fused)).toBe(true);

    const lifted = await recall(query, 0.5);
    expect(lifted.map((memory) => memory.content).slice(0, 2)).toEqual(["How was your holiday in Kyoto last spring?", answer]);
    const boosted = lifted.filter((memory) => memory.neighbourBoost > 0).map((memory) => memory.content);
    // The question is beside its answer too (a small lift, it was first already); seq 2 of another
    // session, seq 5 of the same one (not adjacent) and the summary gain nothing.
    expect(boosted.sort()).toEqual([answer, "How was your holiday in Kyoto last spring?"].sort());
    const first = lifted.find((memory) => memory.content.startsWith("How was"));
    const second = lifted.find((memory) => memory.content === answer);
    expect(second?.neighbourBoost).toBeCloseTo(0.5 * (first?.fused ?? 0), 6);
    expect(second?.score).toBeCloseTo((second?.fused ?? 0) + (second?.neighbourBoost ?? 0), 6);
  });

  it("shows the lift in the receipts, and is a validated setting", async () => {
    // Asked of the past: a window asked how the asker stands now ranks without the lift
    // (test/database/asker-statements.test.ts).
    const { status, body } = await call<{
      explanation: { chosen: { content: string; reason: string; signals: { neighbour_boost: number; fused_score: number } }[] };
    }>(runtime.app, "POST", "/v1/context", { user_id: USER, query: "How was Kyoto with my sister?", max_tokens: 400, explain: true });
    expect(status).toBe(200);
    const answer = body.explanation.chosen.find((receipt) => receipt.content.startsWith("It was lovely"));
    expect(answer?.signals.neighbour_boost).toBeGreaterThan(0);
    expect(answer?.reason).toContain("beside a well-ranked turn of its session");
    // Search mixes facts with turns and leaves the lift out: the same query, no turn lifted.
    const search = await call<{ memories: { content: string; signals: { neighbour_boost: number } }[] }>(
      runtime.app,
      "POST",
      "/v1/memories/search",
      { user_id: USER, query: "Kyoto and my sister", explain: true, limit: 10 },
    );
    expect(search.status).toBe(200);
    expect(search.body.memories.length).toBeGreaterThan(1);
    expect(search.body.memories.every((memory) => memory.signals.neighbour_boost === 0)).toBe(true);
    expect(parseEnv({}).CONTEXT_NEIGHBOUR_WEIGHT).toBe(0.5);
    expect(() => parseEnv({ CONTEXT_NEIGHBOUR_WEIGHT: "-1" })).toThrow(/CONTEXT_NEIGHBOUR_WEIGHT/);
  });
});
