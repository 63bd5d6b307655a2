import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { queryRows } from "../../src/db/database.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

/**
 * Memory stays true as the user changes their mind: superseded statements never read as current,
 * traits agree with facts and with each other, and a retracted fact can be stated again.
 */
let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime();
});
afterAll(() => runtime.close());

/** One session at `day` (of March 2025) with these turns, ended and consolidated. */
async function session(userId: string, day: number, turns: [role: "user" | "assistant", content: string][]): Promise<string> {
  const startedAt = new Date(Date.UTC(2025, 2, day, 10));
  const sessionId = await createSession(runtime.app, userId, { started_at: startedAt.toISOString() });
  const events = turns.map(([role, content], index) =>
    message(role, content, { occurred_at: new Date(startedAt.getTime() + index * 60_000).toISOString() }),
  );
  expect((await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, { events })).status).toBe(201);
  await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`);
  await waitForSettled(runtime.app, userId);
  return sessionId;
}

const memories = async (userId: string, query = "") =>
  (await call(runtime.app, "GET", `/v1/memories?user_id=${userId}&limit=200${query}`)).body.memories as MemoryJson[];
interface MemoryJson {
  id: string;
  type: string;
  subtype: string | null;
  key: string | null;
  content: string;
  expired_at: string | null;
  invalid_at: string | null;
  access_count: number;
  confidence: number;
  last_accessed_at: string;
  trait?: { stage: string };
}

describe("a move, and the reply that did not speak of it", () => {
  beforeAll(async () => {
    await session("rui", 3, [
      ["user", "I just moved to Lisbon for a job at a design studio."],
      ["assistant", "Congratulations! How do you like it so far?"],
      ["user", "Please remember that my daughter Maya starts school on September 4th."],
    ]);
    await session("rui", 20, [["user", "We moved to Porto last week."]]);
  });

  it("marks the turn that said Lisbon, not the congratulations beside it", async () => {
    const found = (
      await call(runtime.app, "POST", "/v1/memories/search", { user_id: "rui", query: "Lisbon design studio congratulations", limit: 20 })
    ).body.memories as { content: string; superseded: { by: string }[] | null }[];
    const lisbon = found.find((memory) => memory.content === "user: I just moved to Lisbon for a job at a design studio.");
    expect(lisbon?.superseded).toEqual([expect.objectContaining({ by: "User lives in Porto." })]);
    const congratulations = found.find((memory) => memory.content === "assistant: Congratulations! How do you like it so far?");
    expect(congratulations).toBeDefined();
    expect(congratulations?.superseded).toBeNull();
  });
});

describe("a change of mind", () => {
  beforeAll(async () => {
    await session("kai", 3, [
      ["user", "Hi! I love ferrets"],
      ["assistant", "Ferrets are wonderful companions."],
    ]);
    await session("kai", 20, [
      ["user", "Honestly, I hate ferrets."],
      ["assistant", "Noted, no more ferret stories then."],
    ]);
  });

  it("supersedes the fact, and the trait of the old attitude dissolves: never both current", async () => {
    const facts = await memories("kai", "&type=semantic");
    expect(facts.filter((fact) => fact.key === "attitude:ferret").map((fact) => fact.content)).toEqual(["User hates ferrets."]);
    const traits = await memories("kai", "&type=trait");
    expect(traits.map((trait) => `${trait.key} ${trait.trait?.stage}`)).toEqual(["dislikes:ferret trend"]);
    // Every version, each with its stage: the dissolved one is kept, and says so.
    const all = await memories("kai", "&type=trait&include_expired=true");
    expect(all.map((trait) => `${trait.key} ${trait.trait?.stage}`).sort()).toEqual(["dislikes:ferret trend", "likes:ferret dissolved"]);
  });

  it("marks the old turn — and the reply to it — as superseded in the context window, with the date and what holds now", async () => {
    const window = (await call(runtime.app, "POST", "/v1/context", { user_id: "kai", query: "Do I like ferrets?", max_tokens: 2000 })).body;
    const lines = (window.sections as { kind: string; items: { text: string }[] }[]).flatMap((section) =>
      section.items.map((item) => item.text),
    );
    const old = lines.find((line) => line.includes("I love ferrets"));
    expect(old).toBeDefined();
    expect(old).toContain("superseded on 2025-03-20");
    expect(old).toContain("User hates ferrets.");
    const reply = lines.find((line) => line.includes("Ferrets are wonderful companions."));
    if (reply) expect(reply).toContain("superseded");
    // What holds now is never marked, and the fact section says it; the newer turn's own item (when
    // the window has room for it beside the quote) is the one without the old words.
    const current = lines.find((line) => line.includes("I hate ferrets") && !line.includes("I love ferrets"));
    if (current) expect(current).not.toContain("superseded");
    // What the user said later is in the window, dated: as its own item under its day when recall
    // put it ahead of the old turn (the asker's own statements, CONTEXT_ASKER_STATEMENTS), else
    // beside the old turn (CONTEXT_LATER_SHARE) — never both, never neither.
    const items = (window.sections as { items: { text: string; group?: string }[] }[]).flatMap((section) => section.items);
    const newer = items.find((item) => item.text.includes("Honestly, I hate ferrets.") && !item.text.includes("I love ferrets"));
    if (newer) {
      expect(newer.group).toBe("2025-03-20");
      expect(old).not.toContain("said later");
    } else expect(old).toContain('[said later, on 2025-03-20: "Honestly, I hate ferrets."]');
    expect(window.prompt.indexOf("User hates ferrets.")).toBeLessThan(window.prompt.indexOf("I love ferrets"));
  });

  it("flags the old turn in search, and ranks what replaced it above it", async () => {
    const found = (await call(runtime.app, "POST", "/v1/memories/search", { user_id: "kai", query: "I love ferrets", limit: 10 })).body
      .memories as {
      content: string;
      superseded: { at: string; by: string }[] | null;
    }[];
    const oldIndex = found.findIndex((memory) => memory.content.includes("I love ferrets"));
    expect(oldIndex).toBeGreaterThanOrEqual(0);
    expect(found[oldIndex]?.superseded).toEqual([expect.objectContaining({ at: "2025-03-20T10:00:00.000Z", by: "User hates ferrets." })]);
    const newerIndex = found.findIndex((memory) => memory.content === "User hates ferrets.");
    expect(newerIndex).toBeGreaterThanOrEqual(0);
    expect(newerIndex).toBeLessThan(oldIndex);
    expect(found.filter((memory) => memory.content.includes("I hate ferrets")).every((memory) => memory.superseded === null)).toBe(true);
  });

  it("keeps a dissolved trait out of the default listing, search and context", async () => {
    const hit = (text: string) => text.includes("User likes ferrets.");
    expect((await memories("kai")).some((memory) => hit(memory.content))).toBe(false);
    const found = (await call(runtime.app, "POST", "/v1/memories/search", { user_id: "kai", query: "User likes ferrets", limit: 20 })).body
      .memories as { content: string }[];
    expect(found.some((memory) => hit(memory.content))).toBe(false);
    const window = (await call(runtime.app, "POST", "/v1/context", { user_id: "kai", query: "User likes ferrets", max_tokens: 2000 })).body;
    expect(hit(window.prompt)).toBe(false);
  });
});

describe("the same with ramen, and a reply that agreed", () => {
  it("marks the assistant's agreement with the replaced statement too", async () => {
    await session("sam", 2, [
      ["user", "I love ramen, it is my favourite food."],
      ["assistant", "Ramen is great!"],
    ]);
    await session("sam", 15, [["user", "I can't stand ramen anymore."]]);
    const found = (await call(runtime.app, "POST", "/v1/memories/search", { user_id: "sam", query: "ramen restaurant", limit: 20 })).body
      .memories as {
      content: string;
      superseded: { by: string }[] | null;
    }[];
    expect(found.find((memory) => memory.content.includes("I love ramen"))?.superseded?.[0]?.by).toBe("User can't stand ramen.");
    expect(found.find((memory) => memory.content.includes("Ramen is great!"))?.superseded?.[0]?.by).toBe("User can't stand ramen.");
  });
});

describe("retract, restate, retract", () => {
  it("works any number of times, each step in history", async () => {
    const location = async () => (await memories("rae", "&type=semantic&key=profile:location")).map((fact) => fact.content);
    await session("rae", 1, [["user", "I live in Bremen."]]);
    expect(await location()).toEqual(["User lives in Bremen."]);
    await session("rae", 5, [["user", "I no longer live in Bremen."]]);
    expect(await location()).toEqual([]);
    await session("rae", 9, [["user", "I live in Bremen."]]);
    expect(await location()).toEqual(["User lives in Bremen."]);
    await session("rae", 13, [["user", "I no longer live in Bremen."]]);
    expect(await location()).toEqual([]);
    await session("rae", 17, [["user", "I live in Bremen."]]);
    expect(await location()).toEqual(["User lives in Bremen."]);
    const versions = await memories("rae", "&type=semantic&key=profile:location&include_expired=true");
    expect(versions).toHaveLength(3);
    const history = await queryRows<{ operation: string }>(
      runtime.database.db,
      sql`SELECT operation FROM memory_history WHERE user_id = 'rae' AND memory_id IN ${versions.map((version) => version.id)} ORDER BY created_at`,
    );
    expect(history.map((row) => row.operation)).toEqual(["ADD", "DELETE", "ADD", "DELETE", "ADD"]);
    // As of each moment the store answered truly.
    const asOf = async (day: number) =>
      (await memories("rae", `&type=semantic&key=profile:location&as_of=${new Date(Date.UTC(2025, 2, day, 12)).toISOString()}`)).map(
        (fact) => fact.content,
      );
    expect(await asOf(3)).toEqual(["User lives in Bremen."]);
    expect(await asOf(7)).toEqual([]);
    expect(await asOf(11)).toEqual(["User lives in Bremen."]);
    expect(await asOf(15)).toEqual([]);
  });
});

describe("saying it again", () => {
  it("a re-confirmation (NOOP) counts as a use: access and confidence rise, so what is repeated does not decay", async () => {
    const fact = {
      user_id: "tia",
      type: "semantic",
      subtype: "preference",
      key: "hobby:chess",
      value: "chess",
      content: "Tia plays chess every Sunday.",
      confidence: 0.8,
    };
    const first = await call(runtime.app, "POST", "/v1/memories", fact);
    const before = first.body.memory as MemoryJson;
    const again = await call(runtime.app, "POST", "/v1/memories", fact);
    expect(again.body.operation).toBe("NOOP");
    const after = (await call(runtime.app, "GET", `/v1/memories/${before.id}`)).body as MemoryJson;
    expect(after.access_count).toBe(before.access_count + 1);
    expect(after.confidence).toBeGreaterThan(before.confidence);
    expect(Date.parse(after.last_accessed_at)).toBeGreaterThanOrEqual(Date.parse(before.last_accessed_at));
  });
});
