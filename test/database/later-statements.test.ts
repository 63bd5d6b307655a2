import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { sourceTurns } from "../../src/memory/recall/hybrid-recall.js";
import { laterStatements } from "../../src/memory/recall/later-statements.js";
import { factSessions } from "../fixtures/fact-sessions.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

/**
 * A fact is read beside what the user said after it: every fact says when it was first stated and
 * last confirmed, the facts API lists the user's later turns nearest to it by meaning, and a
 * context window shows the nearest one next to the fact, dated — whatever the extractor made of it.
 * Sessions months apart, through the API, on the embedded default and on Postgres.
 */
let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime({ CONTEXT_LATER_SHARE: "0.3" });
});
afterAll(() => runtime.close());

const { session } = factSessions(() => runtime);

interface FactJson {
  id: string;
  content: string;
  first_stated_at: string;
  last_confirmed_at: string;
  later_mentions?: { memory_id: string; content: string; said_at: string; similarity: number; names?: string[] }[];
}

const facts = async (userId: string) =>
  (await call<{ memories: FactJson[] }>(runtime.app, "GET", `/v1/memories?user_id=${userId}&type=semantic`)).body.memories;

/** What `laterStatements` finds after a statement, read directly (CONTEXT_LATER_NAMES on or off). */
const laterContents = async (userId: string, id: string, after: string, byName: boolean) =>
  (
    await laterStatements(runtime.database.db, { appId: "default", userId }, [{ id, after: new Date(after) }], {
      perStatement: 3,
      minSimilarity: 0.45,
      byName,
      inQuestions: false,
      now: new Date(),
    })
  )
    .get(id)
    ?.map((later) => later.content);

const day = (n: number) => new Date(Date.UTC(2025, 0, n, 10)).toISOString();

describe("a fact beside what the user said later", () => {
  it("is dated first stated and last confirmed, and lists the later turns on its subject, not the others", async () => {
    await session("lena", 10, ["I live in Bristol.", "Could you suggest a name for a sourdough starter?"]);
    await session("lena", 30, ["My nephew wants a telescope for his birthday, which kind is good for a beginner?"]);
    await session("lena", 45, ["I live in Bristol."]);
    await session("lena", 90, [
      "What is a good stretch for a stiff lower back?",
      "Bristol's harbour festival was packed this weekend, we walked along the docks for hours.",
    ]);

    const bristol = (await facts("lena")).find((fact) => fact.content === "User lives in Bristol.");
    expect(bristol).toBeDefined();
    expect(bristol?.first_stated_at).toBe(day(10));
    expect(bristol?.last_confirmed_at).toBe(day(45));
    const mentions = bristol?.later_mentions ?? [];
    expect(mentions[0]?.content).toContain("harbour festival");
    expect(mentions[0]?.said_at).toBe(new Date(Date.UTC(2025, 0, 90, 10, 2)).toISOString());
    // Said before the last confirmation, or about something else: not a later mention.
    for (const other of ["telescope", "sourdough", "lower back"])
      expect(mentions.map((mention) => mention.content).join("\n")).not.toContain(other);

    const read = await call<FactJson & { sources: unknown[] }>(runtime.app, "GET", `/v1/memories/${bristol?.id}`);
    expect(read.body.later_mentions?.[0]?.memory_id).toBe(mentions[0]?.memory_id);
    expect(read.body.sources.length).toBe(2);
  });

  it("lists only what the user said of themselves on a later occasion: not the rest of that conversation, not a question", async () => {
    await session("noor", 10, ["I live in Norwich.", "Norwich gets so quiet in the evenings where I live, and I like it that way."]);
    await session("noor", 50, ["What is there to do in Norwich on a rainy afternoon?"]);
    await session("noor", 80, ["These days the sea at Cromer is the first thing I see each morning, and Norwich feels far away."]);

    const norwich = (await facts("noor")).find((fact) => fact.content === "User lives in Norwich.");
    expect(norwich).toBeDefined();
    const mentions = (norwich?.later_mentions ?? []).map((mention) => mention.content);
    expect(mentions[0]).toContain("Cromer");
    // The same conversation goes on with the statement; a question states nothing of the user.
    expect(mentions.join("\n")).not.toContain("quiet in the evenings");
    expect(mentions.join("\n")).not.toContain("rainy afternoon");
  });

  it("lists first a later turn naming whom the fact names, even said of them by name alone, over a nearer one that does not", async () => {
    await session("wren", 10, ["My sister Priya teaches chemistry at a secondary school."]);
    await session("wren", 40, ["My niece studies chemistry at a secondary school."]);
    await session("wren", 70, ["Priya swapped the classroom for a lab bench last month."]);

    const sister = (await facts("wren")).find((fact) => /Priya/.test(fact.content));
    expect(sister).toBeDefined();
    const mentions = (sister?.later_mentions ?? []).map((mention) => mention.content);
    // The niece's turn lies nearer the fact by meaning, and names no one the fact named.
    expect(mentions[0]).toContain("lab bench");
    expect(sister?.later_mentions?.[0]?.names).toEqual(["Priya"]);
    expect(mentions.join("\n")).toContain("My niece");

    // With names off (CONTEXT_LATER_NAMES=false), the nearest comes first.
    expect(await laterContents("wren", sister?.id as string, sister?.last_confirmed_at as string, false)).toEqual([
      "user: My niece studies chemistry at a secondary school.",
      "user: Priya swapped the classroom for a lab bench last month.",
    ]);
  });

  it("takes no name of the conversation's own participants for a subject", async () => {
    // Dami speaks in the conversation (the assistant's side, named): talk names Dami on any subject.
    const spoken = async (day: number, turns: [role: "user" | "assistant", content: string, speaker: string][]) => {
      const startedAt = new Date(Date.UTC(2025, 0, day, 10));
      const sessionId = await createSession(runtime.app, "kemi", { started_at: startedAt.toISOString() });
      const events = turns.map(([role, content, speaker], index) =>
        message(role, content, { occurred_at: new Date(startedAt.getTime() + index * 60_000).toISOString(), data: { speaker } }),
      );
      expect((await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, { events })).status).toBe(201);
      await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`);
      await waitForSettled(runtime.app, "kemi");
    };
    await spoken(10, [
      ["user", "Dami and I sing in the same choir on Thursdays.", "Kemi"],
      ["assistant", "Thursdays suit me too.", "Dami"],
    ]);
    await spoken(40, [["user", "Dami brought the sheet music for the spring concert.", "Kemi"]]);
    await spoken(41, [["user", "I sing in a choir on Thursday evenings with friends from work.", "Kemi"]]);

    const turns = (
      await call<{ memories: { id: string; content: string; valid_at: string }[] }>(
        runtime.app,
        "GET",
        "/v1/memories?user_id=kemi&type=episodic&limit=50",
      )
    ).body.memories;
    const statement = turns.find((turn) => turn.content.includes("same choir"));
    expect(statement).toBeDefined();
    // Dami's turn names a participant: it states something, but is not lifted by that name above
    // the nearer turn.
    expect(await laterContents("kemi", statement?.id as string, statement?.valid_at as string, true)).toEqual([
      "Kemi: I sing in a choir on Thursday evenings with friends from work.",
      "Kemi: Dami brought the sheet music for the spring concert.",
    ]);
  });

  it("lists a later turn that says something of a thing, not a question or a request about it", async () => {
    await session("olu", 10, ["I grow leeks and beans on an allotment plot by the railway line."]);
    await session("olu", 50, ["Which winter crops suit an allotment plot by a railway line?", "List winter crops for an allotment plot."]);
    await session("olu", 80, ["The allotment committee handed the plot by the railway line to a new family in June."]);
    const turns = (
      await call<{ memories: { id: string; content: string; valid_at: string }[] }>(
        runtime.app,
        "GET",
        "/v1/memories?user_id=olu&type=episodic&limit=50",
      )
    ).body.memories;
    const statement = turns.find((turn) => turn.content.includes("grow leeks"));
    expect(statement).toBeDefined();
    // No I, no he or she: the committee's act is said of the plot, and is what came later.
    const later = await laterContents("olu", statement?.id as string, statement?.valid_at as string, true);
    expect(later?.[0]).toContain("allotment committee handed the plot");
    expect(later?.join("\n")).not.toContain("winter crop");
  });

  it("in a window: the newest statement on the subject beside the fact, both dated, the fact kept", async () => {
    await session("omar", 5, ["My car is a blue Skoda estate.", "Any tips for keeping basil alive indoors?"]);
    await session("omar", 40, ["How long should I rest a steak after grilling?"]);
    await session("omar", 70, ["The dealer took the Skoda in part exchange and now a little electric Fiat sits on my drive."]);
    const window = await call<{ prompt: string; sections: { kind: string; items: { text: string; sources: { event_id: string }[] }[] }[] }>(
      runtime.app,
      "POST",
      "/v1/context",
      { user_id: "omar", query: "What car do I have?", max_tokens: 400 },
    );
    expect(window.status).toBe(200);
    const items = window.body.sections.flatMap((section) => section.items.map((item) => item.text));
    // The first statement is there, and the later one beside it or above it, dated.
    const skoda = items.findIndex((text) => /Skoda estate/.test(text));
    const fiat = items.findIndex((text) => /electric Fiat/.test(text));
    expect(skoda).toBeGreaterThanOrEqual(0);
    expect(fiat).toBeGreaterThanOrEqual(0);
    expect(window.body.prompt).toMatch(/2025-03-11/);
    if (fiat !== skoda) expect(fiat).toBeLessThan(skoda);
    else expect(items[skoda]).toMatch(/\[said later, on 2025-03-11: ".*electric Fiat.*"\]/);
  });

  it('in a window: what the user said later of someone by "he", not in the first person, beside what they said first', async () => {
    await session("tomas", 5, ["My son plays the trumpet in the school band."]);
    await session("tomas", 40, ["Does he need his own drum kit for lessons?"]);
    await session("tomas", 75, ["He switched to the drums after the summer, and the neighbours are thrilled."]);
    const window = await call<{ sections: { items: { text: string }[] }[] }>(runtime.app, "POST", "/v1/context", {
      user_id: "tomas",
      query: "Which instrument does my son play these days?",
      max_tokens: 500,
    });
    expect(window.status).toBe(200);
    const items = window.body.sections.flatMap((section) => section.items.map((item) => item.text));
    // A question about him states nothing: the statement of him is the later one.
    const trumpet = items.find((text) => text.includes("plays the trumpet"));
    expect(trumpet).toMatch(/\[said later, on 2025-03-16: "He switched to the drums/);
  });

  it("in a window: what the user said without a subject, first and later, the later beside the first or above it", async () => {
    await session("ines", 5, ["Volunteering at the lighthouse museum on Sundays, giving the tours to school groups."]);
    await session("ines", 40, ["How tall is the tallest lighthouse in Europe?", "Write a short poem about a lighthouse keeper."]);
    await session("ines", 75, ["Gave up the museum tours in the spring; helping out at the lifeboat station on Sundays now."]);
    const window = await call<{ sections: { items: { text: string }[] }[] }>(runtime.app, "POST", "/v1/context", {
      user_id: "ines",
      query: "Where do I volunteer these days?",
      max_tokens: 500,
    });
    expect(window.status).toBe(200);
    const items = window.body.sections.flatMap((section) => section.items.map((item) => item.text));
    // Neither statement says I or my: both are the user's by their grammar, and the request and the
    // question state nothing.
    const museum = items.findIndex((text) => text.includes("lighthouse museum on Sundays"));
    const lifeboat = items.findIndex((text) => text.includes("lifeboat station"));
    expect(museum).toBeGreaterThanOrEqual(0);
    expect(lifeboat).toBeGreaterThanOrEqual(0);
    if (museum !== lifeboat) expect(lifeboat).toBeLessThan(museum);
    else expect(items[museum]).toMatch(/\[said later, on 2025-03-16: "Gave up the museum tours/);
  });
});

describe("a window that pays for one note", () => {
  // 500 tokens × 0.1 pays for one note of 30 tokens.
  let narrow: Runtime;
  beforeAll(async () => {
    narrow = await startTestRuntime({ CONTEXT_LATER_SHARE: "0.1" });
  });
  afterAll(() => narrow.close());
  const telling = factSessions(() => narrow);
  const chosen = async (userId: string, query: string) => {
    const window = await call<{ explanation: { chosen: { content: string; reason: string; later_statement?: { memory_id: string } }[] } }>(
      narrow.app,
      "POST",
      "/v1/context",
      { user_id: userId, query, max_tokens: 500, explain: true },
    );
    expect(window.status).toBe(200);
    return window.body.explanation.chosen;
  };

  it("reads the asker's own statement beside what came later, though facts take the note the share pays for", async () => {
    await telling.session("ruth", 5, ["My car is a blue Skoda estate that I drive to work."]);
    await telling.session("ruth", 40, ["How long should I rest a steak after grilling?"]);
    await telling.session("ruth", 70, ["The blue Skoda estate went back to the dealer, and an electric Fiat took its place."]);
    // Facts said last: nothing later to show beside them, but they are read first.
    await telling.session("ruth", 80, ["I live in Bristol.", "I work at Orla Foods."]);
    const skoda = (await chosen("ruth", "Which car do I drive these days?")).find((memory) => memory.content.includes("Skoda estate"));
    // Read first as the asker's own statement, and shown with what the user said later: with only
    // the facts read beside what came later, it would be shown as it first stood.
    expect(skoda?.reason).toMatch(/own statements nearest to a question about how they stand now/);
    expect(skoda?.later_statement).toBeDefined();
  });
});

describe("statements said on the way to a question (CONTEXT_QUESTION_STATEMENTS)", () => {
  let questioning: Runtime;
  beforeAll(async () => {
    questioning = await startTestRuntime({ CONTEXT_LATER_SHARE: "0.3", CONTEXT_QUESTION_STATEMENTS: "true" });
  });
  afterAll(() => questioning.close());
  const asking = factSessions(() => questioning);

  /** The history of one user, told in three sessions on days 5, 40 and 75, said to `on`. */
  const tell = async (on: typeof asking, userId: string) => {
    await on.session(userId, 5, ["How do I stop the bees I keep on the roof of the community hall from swarming in May?"]);
    await on.session(userId, 40, ["What is the longest river in Patagonia?", "Write a limerick about a sleepy hedgehog."]);
    await on.session(userId, 75, ["What do hens eat in winter now that I keep hens instead of the bees on the community hall roof?"]);
  };
  const chosen = async (app: Runtime["app"], userId: string) => {
    const window = await call<{ explanation: { chosen: { content: string; reason: string; later_statement?: { said_at: string } }[] } }>(
      app,
      "POST",
      "/v1/context",
      { user_id: userId, query: "What livestock am I tending these days?", max_tokens: 500, explain: true },
    );
    expect(window.status).toBe(200);
    return window.body.explanation.chosen;
  };

  it("in a window: read as the user's own statements, the later first or beside the first", async () => {
    await tell(asking, "tomas");
    const memories = await chosen(questioning.app, "tomas");
    // Both statements are said inside questions, with no clause of their own before the question:
    // each is the user's by its clause with "I" as the subject, and the later one is read first, or
    // beside the first.
    const bees = memories.findIndex((memory) => memory.content.includes("bees I keep on the roof"));
    const hens = memories.findIndex((memory) => memory.content.includes("I keep hens instead"));
    expect(hens).toBeGreaterThanOrEqual(0);
    expect(memories[hens]?.reason).toMatch(/one of the user's own statements/);
    if (bees >= 0) expect(hens < bees || memories[bees]?.later_statement !== undefined).toBe(true);
  });

  it("off by default: the same history gives no question as a statement of the user's", async () => {
    await tell(
      factSessions(() => runtime),
      "tomas-off",
    );
    const memories = await chosen(runtime.app, "tomas-off");
    expect(memories.some((memory) => /one of the user's own statements/.test(memory.reason))).toBe(false);
  });
});

describe("a turn found by the fact derived from it", () => {
  it("reads the turns a fact came from, current ones only, for the fact", async () => {
    const sessionId = await createSession(runtime.app, "ines");
    const appended = await call<{ events: { id: string }[] }>(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, {
      events: [
        message("user", "We adopted Pixel from the shelter in spring and she sleeps on my laptop."),
        message("assistant", "Lovely!"),
      ],
    });
    await waitForSettled(runtime.app, "ines");
    const [said] = appended.body.events;
    const created = await call<{ memory: { id: string } }>(runtime.app, "POST", "/v1/memories", {
      user_id: "ines",
      type: "semantic",
      subtype: "profile",
      key: "pets:cat",
      value: { name: "Pixel" },
      content: "User's cat is named Pixel.",
      source_event_ids: [said?.id],
    });
    expect(created.status).toBe(201);
    const fact = created.body.memory.id;
    const turns = await sourceTurns(
      runtime.database.db,
      { appId: "default", userId: "ines" },
      [{ id: fact, sources: [{ session_id: sessionId, event_id: said?.id as string, seq: 1 }] }],
      { now: new Date(), lambda: 0.1 },
    );
    expect(turns.get(fact)?.map((turn) => turn.content)).toEqual([
      "user: We adopted Pixel from the shelter in spring and she sleeps on my laptop.",
    ]);
    // Another user's fact naming the same event reads nothing: the turns are read in the asker's scope.
    const foreign = await sourceTurns(
      runtime.database.db,
      { appId: "default", userId: "someone-else" },
      [{ id: fact, sources: [{ session_id: sessionId, event_id: said?.id as string, seq: 1 }] }],
      { now: new Date(), lambda: 0.1 },
    );
    expect(foreign.size).toBe(0);
  });
});
