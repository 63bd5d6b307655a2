import { afterEach, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { o200kTokenizer } from "../../src/context/o200k-tokenizer.js";
import { questionAsStatement } from "../../src/context/question-statement.js";
import { createHashingEmbedder } from "../../src/providers/offline/hashing-embedder.js";
import type { Embedder } from "../../src/providers/types.js";
import { factSessions } from "../fixtures/fact-sessions.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

/**
 * A question about how the asker stands now reads the user's own statements nearest to it first,
 * each beside what the user said later: the statement shares none of the question's words, and
 * the fused ranking puts every turn that does ahead of it. The same history with the setting off
 * shows the ranking alone leaves it out. Through the API, on both databases.
 */
let runtime: Runtime | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

const { session } = factSessions(() => runtime as Runtime);

interface Receipt {
  memory_id: string;
  content: string;
  reason: string;
  later_statement?: { memory_id: string };
  signals?: { neighbour_boost: number };
}
interface Window {
  sections: { items: { text: string; memory_id?: string; excerpt?: boolean }[] }[];
  explanation: { chosen: Receipt[]; left_out: Receipt[] };
}

const QUESTION = "What sort of boat do I own these days?";

/** Other talk between the two statements, by day: questions sharing the question's words, and statements about other things. */
const OTHER_TALK: [day: number, said: string[]][] = [
  [
    12,
    [
      "What sort of knots should a beginner learn first?",
      "Do I own the copyright on photos I take at a concert?",
      "My sister and I are planning a walking trip in the Dolomites.",
    ],
  ],
  [
    30,
    [
      "What sort of paint works on a garden shed these days?",
      "Which boat races are shown on television in the spring?",
      "I've started baking rye bread on Sundays.",
    ],
  ],
  [
    41,
    [
      "What sort of rope is best for a washing line?",
      "Should I own a pressure washer or hire one when I need it?",
      "How many days does it take to walk across the Pyrenees?",
    ],
  ],
  [
    52,
    [
      "What sort of glue holds a broken ceramic mug together?",
      "Is a rowing boat hard to learn on a fast river?",
      "Which days of the week are the big museums in Madrid free?",
    ],
  ],
];

/** A sailor's history: the boat said once, other talk that shares the question's words, the boat changed months later. */
async function sailorHistory(): Promise<void> {
  await session("ilse", 3, ["Last summer I finally bought a wooden sailing dinghy, and I keep her moored at the reservoir club."]);
  for (const [day, said] of OTHER_TALK) await session("ilse", day, said);
  await session("ilse", 70, ["Sold the dinghy in the autumn and bought a secondhand canal narrowboat that I live on full time now."]);
}

const ask = async (app: Runtime["app"], query = QUESTION) =>
  call<Window>(app, "POST", "/v1/context", { user_id: "ilse", query, max_tokens: 260, explain: true });

/** A cabin's stove said twice as plain statements of a thing, neither with I or my, months apart, with the same other talk between. */
async function cabinHistory(): Promise<void> {
  await session("ilse", 3, ["The cabin stove is a cast iron wood burner that eats a basket of logs every evening."]);
  for (const [day, said] of OTHER_TALK) await session("ilse", day, said);
  await session("ilse", 70, ["The wood burner went to a neighbour in March, and a pellet burner keeps the place warm now."]);
}

describe("the asker's own statements", () => {
  it("are read first for a question about how the asker stands now, beside what was said later", async () => {
    runtime = await startTestRuntime();
    await sailorHistory();
    const window = await ask(runtime.app);
    expect(window.status).toBe(200);
    const dinghy = window.body.explanation.chosen.find((memory) => memory.content.includes("wooden sailing dinghy"));
    expect(dinghy?.reason).toMatch(/own statements nearest to a question about how they stand now/);
    const text = window.body.sections.flatMap((section) => section.items.map((item) => item.text)).join("\n");
    expect(text).toContain("narrowboat");
  });

  it("are each shown beside their own later statement, not as the note of the one before", async () => {
    runtime = await startTestRuntime();
    await sailorHistory();
    // Said after the narrowboat, near it and far from the question: no own statement, only its note.
    await session("ilse", 110, [
      "The narrowboat went to a couple from Leeds in March, and the canal mooring fee is somebody else's worry now.",
    ]);
    const window = await ask(runtime.app);
    expect(window.status).toBe(200);
    const { chosen } = window.body.explanation;
    const own = chosen.filter((memory) => /own statements nearest/.test(memory.reason));
    const narrowboat = own.find((memory) => memory.content.includes("canal narrowboat"));
    const dinghy = own.find((memory) => memory.content.includes("wooden sailing dinghy"));
    expect(narrowboat).toBeDefined();
    expect(dinghy).toBeDefined();
    expect(own.some((memory) => memory.content.includes("couple from Leeds"))).toBe(false);
    // Both read first: the narrowboat is no note of the dinghy, which would hide the narrowboat's own note.
    expect(dinghy?.later_statement?.memory_id).not.toBe(narrowboat?.memory_id);
    expect(narrowboat?.later_statement).toBeDefined();
    const text = window.body.sections.flatMap((section) => section.items.map((item) => item.text)).join("\n");
    expect(text).toContain("couple from Leeds");
  });

  it("are read first for a question asked in the plural, about the asker's household", async () => {
    runtime = await startTestRuntime();
    await sailorHistory();
    const window = await ask(runtime.app, "What sort of boat do we own these days?");
    expect(window.status).toBe(200);
    const narrowboat = window.body.explanation.chosen.find((memory) => memory.content.includes("canal narrowboat"));
    expect(narrowboat?.reason).toMatch(/own statements nearest to a question about how they stand now/);
  });

  /**
   * The sailor's history with an answered question between the statements: the assistant's answer
   * shares no word with the question, and sits beside a turn that shares most of them.
   */
  const answeredHistory = async (app: Runtime["app"]) => {
    await sailorHistory();
    const startedAt = new Date(Date.UTC(2025, 0, 20, 10));
    const sessionId = await createSession(app, "ilse", { started_at: startedAt.toISOString() });
    const at = (minutes: number) => ({ occurred_at: new Date(startedAt.getTime() + minutes * 60_000).toISOString() });
    const events = [
      message("user", "What sort of sail do I need these days for a boat of my own?", at(0)),
      message("assistant", "A small jib and a reefable main suit most dinghies on a reservoir.", at(1)),
    ];
    expect((await call(app, "POST", `/v1/sessions/${sessionId}/events`, { events })).status).toBe(201);
    await call(app, "POST", `/v1/sessions/${sessionId}/end`);
    await waitForSettled(app, "ilse");
  };

  /** What a neighbouring turn added to each of the window's candidates. */
  const boosts = async (app: Runtime["app"], query = QUESTION) => {
    const window = await ask(app, query);
    expect(window.status).toBe(200);
    return [...window.body.explanation.chosen, ...window.body.explanation.left_out].map((memory) => memory.signals?.neighbour_boost ?? 0);
  };

  it("are ranked without the neighbour boost, which lifts turns for sitting beside a turn sharing the question's words", async () => {
    runtime = await startTestRuntime();
    await answeredHistory(runtime.app);
    const asked = await boosts(runtime.app);
    expect(asked.length).toBeGreaterThan(3);
    expect(asked.every((boost) => boost === 0)).toBe(true);
    // Asked about the past, the asker's statements are not read first: the boost lifts a turn.
    expect((await boosts(runtime.app, "What sort of boat did I own?")).some((boost) => boost > 0)).toBe(true);
  });

  it("leave the neighbour boost in place with CONTEXT_ASKER_STATEMENTS=false", async () => {
    runtime = await startTestRuntime({ CONTEXT_ASKER_STATEMENTS: "false" });
    await answeredHistory(runtime.app);
    // The same history and question, the asker's statements not read: the boost lifts a turn.
    expect((await boosts(runtime.app)).some((boost) => boost > 0)).toBe(true);
  });

  it("are left to the ranking with CONTEXT_ASKER_STATEMENTS=false, which does not reach the first statement", async () => {
    runtime = await startTestRuntime({ CONTEXT_ASKER_STATEMENTS: "false" });
    await sailorHistory();
    const window = await ask(runtime.app);
    expect(window.status).toBe(200);
    const contents = window.body.explanation.chosen.map((memory) => memory.content).join("\n");
    expect(contents).not.toContain("wooden sailing dinghy");
    expect(window.body.explanation.chosen.map((memory) => memory.reason).join("\n")).not.toMatch(/own statements/);
  });

  /**
   * Asked about the cabin's stove: the first statement is read as the asker's own statement, and
   * the later one, which shares none of the question's words, is found as what was said after it
   * and shown beside it.
   */
  const expectStoveBesideLater = async (app: Runtime["app"]) => {
    const window = await ask(app, "What sort of stove do I heat the cabin with these days?");
    expect(window.status).toBe(200);
    const burner = window.body.explanation.chosen.find((memory) => memory.content.includes("cast iron wood burner"));
    expect(burner?.reason).toMatch(/own statements nearest to a question about how they stand now/);
    expect(burner?.later_statement).toBeDefined();
    const text = window.body.sections.flatMap((section) => section.items.map((item) => item.text)).join("\n");
    expect(text).toContain("pellet burner");
  };

  it("may be plain statements of a thing of the asker's life, without I or my, each beside what was said later", async () => {
    runtime = await startTestRuntime();
    await cabinHistory();
    await expectStoveBesideLater(runtime.app);
  });

  it("may be typed without capitals, a statement run into a question after a full stop", async () => {
    runtime = await startTestRuntime();
    await session("ilse", 3, ["the cabin stove is a cast iron wood burner. any idea how often the flue wants sweeping?"]);
    for (const [day, said] of OTHER_TALK) await session("ilse", day, said);
    await session("ilse", 70, [
      "the wood burner went to a neighbour in march and a pellet burner heats the place now. which pellets leave the least ash?",
    ]);
    await expectStoveBesideLater(runtime.app);
  });

  it("may be typed inside a question, a statement before a comma that opens the question", async () => {
    runtime = await startTestRuntime();
    await session("ilse", 3, [
      "The cabin stove is a cast iron wood burner that eats logs every evening, how often should its flue be swept?",
    ]);
    for (const [day, said] of OTHER_TALK) await session("ilse", day, said);
    await session("ilse", 70, [
      "The wood burner went to a neighbour in March and a pellet burner warms the place now, which pellets burn cleanest?",
    ]);
    await expectStoveBesideLater(runtime.app);
  });

  /**
   * A musician's history: seven long turns, each a statement of an instrument they play and three
   * sentences of other things, a week apart, all near the question said as a statement.
   */
  const MUSIC: string[] = [
    "I play the cello in a community orchestra on Thursday evenings. The rehearsal hall is an old school gym with poor acoustics. We park behind the bakery because the front lot fills by seven. Afterwards a few of us walk to the corner pub for chips.",
    "I play bass guitar in a covers band that rehearses in a garage. The drummer's neighbour complains whenever we run past nine. Our singer works shifts at the hospital, so the rota changes every month. Last week we learned a song from an old film soundtrack.",
    "I play the tin whistle at a folk session in the harbour bar. The fiddlers sit by the window and the singers by the fire. Tunes start slow and speed up as the evening goes on. The barman keeps a jar of spare reeds for the pipers.",
    "I play the organ for a small chapel on the first Sunday of each month. The bellows were rebuilt last year by a firm from the next county. The congregation sings slowly, so I keep the tempo gentle. Tea and biscuits follow in the side room.",
    "I play the ukulele with my niece on Saturday mornings. She picks the songs and I write the chords on index cards. Her cat sleeps on the sheet music whenever we stop for juice. We recorded a song for her grandmother's birthday.",
    "I play the trombone in a brass band that marches at the summer fair. The uniforms are wool and far too warm for August. Our conductor is a retired postman with a loud whistle. The band room smells of valve oil and old carpet.",
    "I play the piano at home most evenings after supper. The upright came from my aunt and needs tuning twice a year. I am working through a book of nocturnes, one page a week. The neighbours say they like hearing it through the wall.",
  ];

  it("are read twice as many as the notes paid for, each cut as short as a note, so more are shown than notes paid for", async () => {
    // Which six of the seven are read is the ranking's (ranked by the statement form alone here, so
    // that the seventh is a turn the ranking brings); this test is of how they are cut.
    runtime = await startTestRuntime({ CONTEXT_ASKER_CENTRED: "false" });
    for (const [index, turn] of MUSIC.entries()) await session("ilse", 3 + index * 7, [turn]);
    const window = await call<Window>(runtime.app, "POST", "/v1/context", {
      user_id: "ilse",
      query: "Which instruments do I play these days?",
      max_tokens: 500,
      explain: true,
    });
    expect(window.status).toBe(200);
    const { chosen, left_out } = window.body.explanation;
    const own = [...chosen, ...left_out].filter((memory) => /own statements nearest/.test(memory.reason));
    // 500 tokens at a share of 0.2 pay for three notes of 30 tokens: six own statements are read.
    expect(own).toHaveLength(6);
    const items = window.body.sections.flatMap((section) => section.items);
    const isOwn = (item: { memory_id?: string }) => own.some((memory) => memory.memory_id === item.memory_id);
    const ownItems = items.filter(isOwn);
    // More than the three the notes pay for are shown.
    expect(ownItems.length).toBeGreaterThanOrEqual(4);
    const statementOf = (item: { text: string }) => item.text.replace(/^- /, "").split(" [said later")[0] as string;
    for (const item of ownItems) {
      expect(item.excerpt).toBe(true);
      expect(o200kTokenizer.count(statementOf(item))).toBeLessThanOrEqual(30);
    }
    // Only the asker's own statements are cut so short: a turn the ranking brings keeps a memory's length.
    const ranked = items.filter((item) => item.memory_id !== undefined && !isOwn(item) && item.text.includes("user: I play"));
    expect(ranked.some((item) => o200kTokenizer.count(statementOf(item)) > 30)).toBe(true);
  });

  /**
   * Vectors laid out by hand, so that what the ranking does is the test's arithmetic and not a
   * model's: a few axes of meaning (the user's habitual "I am …" opening, the harbour asked about,
   * the interrogative form, and one axis of other content per turn), every other text on axes of
   * its own. Six turns are mostly the habitual opening; one says where the user's yacht is kept,
   * with less of it. The question said as a statement is mostly that opening too, so by its vector alone the
   * habitual turns are nearest, and by both forms' cosines as well (by hand, their means: 0.69
   * against 0.64); centred on the user's turns (whose mean is mostly the opening), the turn that
   * stands apart from the others along the asked-for axis is nearest both forms.
   */
  const HARBOUR_QUESTION = "Which harbour am I sailing from these days?";
  const HARBOUR_TURN = "Our yacht sits on a pontoon in Falmouth harbour, beside the maritime museum.";
  const HABITUAL = [
    "I am based at the library most mornings, reading about old maps.",
    "I am based at a desk by the window, and the light is lovely.",
    "I am based on the sofa in the evenings, knitting a long scarf.",
    "I am based at the allotment on Saturdays, weeding the onions.",
    "I am based in the spare room on rainy days, sorting photographs.",
    "I am based at the swimming pool early, counting slow lengths.",
  ];
  const DIMENSIONS = 24;
  const [OPENING, HARBOUR, ASKING] = [0, 1, 2];
  const OTHER_CONTENT = 3; // one axis per habitual turn: 3..8
  const MOORING = 9; // what a second turn is about
  const axes = (weights: Record<number, number>) => Array.from({ length: DIMENSIONS }, (_, axis) => weights[axis] ?? 0);
  /** How the question and its statement form lie, and the turns beyond the habitual ones and the harbour's. */
  interface Layout {
    question: number[];
    statement: number[];
    turns?: [text: string, vector: number[]][];
  }
  const laidOut = (layout: Layout, text: string): number[] => {
    if (text === HARBOUR_QUESTION) return layout.question;
    if (text === questionAsStatement(HARBOUR_QUESTION)) return layout.statement;
    if (text.includes(HARBOUR_TURN)) return axes({ [OPENING]: 0.6, [HARBOUR]: 0.8 });
    const habitual = HABITUAL.findIndex((turn) => text.includes(turn));
    if (habitual >= 0) return axes({ [OPENING]: 0.9, [OTHER_CONTENT + habitual]: 0.44 });
    const other = layout.turns?.find(([turn]) => text.includes(turn));
    if (other) return other[1];
    // Anything else (the assistant's answers, summaries, facts) on an axis of its own, by its length.
    return axes({ [10 + (text.length % (DIMENSIONS - 10))]: 1 });
  };
  const laidOutEmbedder = (layout: Layout): Embedder => ({
    model: "laid-out-24",
    dimensions: DIMENSIONS,
    embed: async (texts) => texts.map((text) => laidOut(layout, text)),
  });
  const OPENING_HEAVY: Layout = {
    question: axes({ [ASKING]: 0.8, [HARBOUR]: 0.2, [OPENING]: 0.566 }),
    statement: axes({ [OPENING]: 0.97, [HARBOUR]: 0.24 }),
  };
  /** The window's own statements, nearest first, shown or left out (one may be shown as another's note instead). */
  const askHarbour = async (app: Runtime["app"]) => {
    const window = await ask(app, HARBOUR_QUESTION);
    expect(window.status).toBe(200);
    const { chosen, left_out } = window.body.explanation;
    return [...chosen, ...left_out].filter((memory) => /own statements nearest/.test(memory.reason)).map((memory) => memory.content);
  };
  const habitualHistory = async () => {
    await session("ilse", 3, [HARBOUR_TURN]);
    for (const [index, said] of HABITUAL.entries()) await session("ilse", 10 + index * 5, [said]);
  };

  it("are found by the question and its statement form together, centred on the user's turns", async () => {
    runtime = await startTestRuntime({}, { providers: { embedder: laidOutEmbedder(OPENING_HEAVY) } });
    await habitualHistory();
    const own = await askHarbour(runtime.app);
    // 260 tokens pay for one note: two own statements are read, the harbour's first.
    expect(own[0]).toContain("Falmouth");
  });

  it("are found by the statement form alone with CONTEXT_ASKER_CENTRED=false, nearest the user's habitual opening", async () => {
    runtime = await startTestRuntime({ CONTEXT_ASKER_CENTRED: "false" }, { providers: { embedder: laidOutEmbedder(OPENING_HEAVY) } });
    await habitualHistory();
    const own = await askHarbour(runtime.app);
    // The six habitual turns are equally near (ties fall by id): which two are read varies, never the harbour's.
    expect(own.length).toBeGreaterThan(0);
    expect(own.some((content) => content.includes("Falmouth"))).toBe(false);
  });

  /**
   * Each form alone is nearest another turn: the statement form, centred, nearest a turn about the
   * club's moorings, which it shares an axis with; the question, centred, nearest a turn along the
   * interrogative axis. By hand, centred cosines (harbour, moorings, the other): the statement
   * form's 0.26, 0.44, ..., the question's 0.53, 0.00, 0.71, their means 0.40, 0.22, 0.12.
   */
  it("are found by both forms at once, where either form alone is nearest another turn", async () => {
    const moorings = "The club's winter moorings are booked through the secretary, and the fees went up in October.";
    const other = "The chandlery on the quay stays open late on Thursdays, and the coffee there is decent.";
    const layout: Layout = {
      question: axes({ [ASKING]: 0.8, [HARBOUR]: 0.6 }),
      statement: axes({ [OPENING]: 0.95, [MOORING]: 0.25, [HARBOUR]: 0.2 }),
      turns: [
        [moorings, axes({ [OPENING]: 0.6, [MOORING]: 0.8 })],
        [other, axes({ [OPENING]: 0.6, [ASKING]: 0.8 })],
      ],
    };
    runtime = await startTestRuntime({}, { providers: { embedder: laidOutEmbedder(layout) } });
    await habitualHistory();
    await session("ilse", 45, [moorings]);
    await session("ilse", 50, [other]);
    const own = await askHarbour(runtime.app);
    expect(own[0]).toContain("Falmouth");
  });

  it("are found by the question itself when the question said as a statement cannot be embedded, and the window says so", async () => {
    const hashing = createHashingEmbedder();
    const statement = questionAsStatement(QUESTION);
    const flaky: Embedder = {
      model: hashing.model,
      dimensions: hashing.dimensions,
      embed: (texts, options) =>
        texts.includes(statement as string) ? Promise.reject(new Error("embedder overloaded (429)")) : hashing.embed(texts, options),
    };
    runtime = await startTestRuntime({}, { providers: { embedder: flaky } });
    await session("ilse", 3, ["Last summer I finally bought a wooden sailing dinghy, and I keep her moored at the reservoir club."]);
    const window = await call<{ warnings: string[] }>(runtime.app, "POST", "/v1/context", {
      user_id: "ilse",
      query: QUESTION,
      max_tokens: 260,
    });
    expect(window.status).toBe(200);
    expect(window.body.warnings).toEqual([
      expect.stringMatching(/own statements were found by the question itself: .*embedder overloaded \(429\)/),
    ]);
  });
});
