import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { factSessions } from "../fixtures/fact-sessions.js";
import { call, startTestRuntime } from "../fixtures/runtime.js";

/**
 * A question about a kind of thing (a taste, a habit, a goal) recalls the user's own statements of
 * that kind, nearest first, beside the words and the vectors: through the API, on both databases.
 */
let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime({ CONTEXT_KIND_RECALL: "true" });
});
afterAll(() => runtime.close());

const { session } = factSessions(() => runtime);

interface Receipt {
  content: string;
  signals: { channels: { channel: string; rank: number }[] };
}

describe("recall by the kind of thing asked about", () => {
  it("finds a taste said in other words than the question's, through the kind channel", async () => {
    await session("nadia", 3, ["Honestly my favourite band is The National, I've queued for their gigs six times."]);
    await session("nadia", 20, [
      "Can you list the big music festivals in Europe this summer?",
      "How did jazz spread out of New Orleans?",
      "Which music streaming service has the best sound quality?",
    ]);
    const answer = await call<{ explanation: { chosen: Receipt[]; left_out: Receipt[] } }>(runtime.app, "POST", "/v1/context", {
      user_id: "nadia",
      query: "Which sort of music am I a fan of?",
      max_tokens: 600,
      explain: true,
    });
    expect(answer.status).toBe(200);
    const taste = answer.body.explanation.chosen.find((memory) => memory.content.includes("The National"));
    expect(taste?.signals.channels.map((place) => place.channel)).toContain("kind");
    // A question about no kind asks the kind channel nothing.
    const plain = await call<{ explanation: { chosen: Receipt[] } }>(runtime.app, "POST", "/v1/context", {
      user_id: "nadia",
      query: "Where is New Orleans?",
      max_tokens: 600,
      explain: true,
    });
    expect(plain.body.explanation.chosen.flatMap((memory) => memory.signals.channels.map((place) => place.channel))).not.toContain("kind");
  });
});
