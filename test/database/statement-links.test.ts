import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { questionAsStatement } from "../../src/context/question-statement.js";
import { queryRows } from "../../src/db/database.js";
import type { ChangeCase } from "../../src/eval/changes/case-set.js";
import { withCaseInside } from "../../src/eval/changes/changes-run.js";
import { linksLine, reachLine, statementLinks } from "../../src/eval/changes/statement-links.js";
import type { LongMemEvalQuestion } from "../../src/eval/longmemeval.js";
import { importHaystack } from "../../src/eval/longmemeval-run.js";
import { ManualClock } from "../../src/util/clock.js";
import { startTestRuntime } from "../fixtures/runtime.js";

/**
 * `npm run eval:changes -- --links`: where the service's embedder puts a case's two statements
 * among the user's turns nearest its question, and how near the later one is to the first, read
 * from what the import stored. On the embedded default and on Postgres.
 */
const clock = new ManualClock(new Date("2024-02-01T09:00:00Z"));
let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime({}, { clock });
});
afterAll(() => runtime.close());

/** The embedders' vectors are unit length: their cosine is their dot product. */
const cosine = (a: number[], b: number[]) => a.reduce((sum, value, index) => sum + value * (b[index] as number), 0);

const chatter = [
  "Could you explain how tides work?",
  "Tides follow the moon's pull on the oceans.",
  "What is a good recipe for lentil soup?",
  "Soften onions, add lentils and stock, simmer for half an hour.",
  "How do I stop my laptop from overheating?",
  "Keep the vents clear and raise the back of it a little.",
  "Which constellations are easy to spot in winter?",
  "Orion is the easiest, with its three-star belt.",
];

/** Four sessions of other talk, a week apart: the case's statements go inside the second and the fourth. */
const haystack: LongMemEvalQuestion = {
  id: "links-haystack",
  type: "knowledge-update",
  question: "",
  answerSessionIds: [],
  askedAt: new Date("2024-03-01T09:00:00Z"),
  sessions: [0, 1, 2, 3].map((week) => ({
    id: `week-${week}`,
    date: new Date(Date.UTC(2024, 1, 1 + week * 7, 9)),
    turns: chatter.map((content, index) => ({
      id: `week-${week}#${index}`,
      role: index % 2 === 0 ? ("user" as const) : ("assistant" as const),
      content,
      hasAnswer: false,
    })),
  })),
};

const orchard: ChangeCase = {
  kind: "case",
  id: "orchard-to-vineyard",
  first: "I look after a small apple orchard behind the village church.",
  change: "These days I prune grapevines on a hillside vineyard instead of the old orchard.",
  question: "What kind of fruit growing do I do?",
  old: /orchard/i,
  new: /vineyard/i,
};

describe("statement links", () => {
  it("places both statements among the user's turns by the question, and gives the later one's cosine to the first", async () => {
    const imported = await importHaystack(runtime, clock, withCaseInside(haystack, orchard), "links-user");
    const links = await statementLinks(runtime, orchard, imported.userId);
    // The same places and cosine computed here, from the stored turns' texts and the service's embedder.
    const turns = await queryRows<{ content: string; turn_id: string }>(
      runtime.database.db,
      sql`SELECT m.content, e.data ->> 'turn_id' AS turn_id FROM memories m
            JOIN memory_sources s ON s.memory_id = m.id JOIN session_events e ON e.id = s.event_id
           WHERE m.user_id = ${imported.userId} AND m.subtype = 'turn' AND m.metadata ->> 'role' = 'user'`,
    );
    const [question, statement, ...vectors] = await runtime.providers.embedder.embed([
      orchard.question,
      questionAsStatement(orchard.question) ?? orchard.question,
      ...turns.map((turn) => turn.content),
    ]);
    const placeOf = (turnId: string, query: number[]) => {
      const similarities = vectors.map((vector) => cosine(query, vector));
      const own = similarities[turns.findIndex((turn) => turn.turn_id === turnId)] as number;
      return 1 + similarities.filter((similarity) => similarity > own + 1e-3).length;
    };
    const vectorOf = (turnId: string) => vectors[turns.findIndex((turn) => turn.turn_id === turnId)] as number[];
    // 4 sessions × 4 user turns of chatter, and the two statements.
    expect(links.userTurns).toBe(18);
    expect(links.byQuestion).toEqual({
      first: placeOf("orchard-to-vineyard:first", question as number[]),
      later: placeOf("orchard-to-vineyard:later", question as number[]),
    });
    expect(links.byStatementForm).toEqual({
      first: placeOf("orchard-to-vineyard:first", statement as number[]),
      later: placeOf("orchard-to-vineyard:later", statement as number[]),
    });
    expect(links.byQuestion.first).not.toBe(links.byQuestion.later);
    expect(links.firstToLater).toBeCloseTo(cosine(vectorOf("orchard-to-vineyard:first"), vectorOf("orchard-to-vineyard:later")), 2);
    expect(linksLine([links], 0.45)).toMatch(/^links of 1 changes: /);
  });

  it("says which case's turn the import lacks, and when no turn was embedded by the service's model", async () => {
    await expect(statementLinks(runtime, { ...orchard, id: "never-imported" }, "links-user")).rejects.toThrow(/never-imported/);
    await expect(statementLinks(runtime, orchard, "nobody")).rejects.toThrow(/no user turn of nobody is embedded by/);
  });
});

describe("the links line", () => {
  it("counts cases by place and by the later-statement floor", () => {
    const line = linksLine(
      [
        { id: "a", byQuestion: { first: 1, later: 40 }, byStatementForm: { first: 3, later: 12 }, userTurns: 200, firstToLater: 0.6 },
        { id: "b", byQuestion: { first: 11, later: 10 }, byStatementForm: { first: 2, later: 9 }, userTurns: 200, firstToLater: 0.45 },
        { id: "c", byQuestion: { first: 30, later: 2 }, byStatementForm: { first: 40, later: 50 }, userTurns: 200, firstToLater: 0.2 },
      ],
      0.45,
    );
    expect(line).toBe(
      "links of 3 changes: among the 10 user turns nearest the question, the first statement in 1; the later one in 2; nearest its statement form, 2 and 1; the later one reaches 0.45 of the first in 2",
    );
  });

  it("sorts the windows that miss the newest statement by where the embedder put the two statements", () => {
    const window = (budget: number, newestHeld: boolean) => ({ budget, newestHeld, oldShown: false, kept: false, tokens: budget });
    const result = (id: string, kind: "case" | "control", held500: boolean) => ({
      id,
      kind,
      haystack: "h",
      windows: [window(500, held500), window(1000, true)],
    });
    const linked = (id: string, question: [number, number], form: [number, number], firstToLater: number) => ({
      id,
      byQuestion: { first: question[0], later: question[1] },
      byStatementForm: { first: form[0], later: form[1] },
      userTurns: 200,
      firstToLater,
    });
    const links = [
      // The later statement 10th by the question alone, or 7th by the statement form alone: within reach.
      linked("later-tenth-by-question", [40, 10], [50, 11], 0.1),
      linked("later-by-form", [40, 30], [50, 7], 0.1),
      // The first 10th, the later one exactly at the floor of it: through the first.
      linked("first-tenth-at-floor", [10, 11], [12, 11], 0.45),
      // The first 11th however near the later one is, or near with the later one below the floor: out of reach.
      linked("first-eleventh", [11, 11], [11, 11], 0.9),
      linked("below-floor", [3, 30], [12, 25], 0.44),
      linked("held", [90, 80], [90, 80], 0.1),
    ];
    const results = [
      ...["later-tenth-by-question", "later-by-form", "first-tenth-at-floor", "first-eleventh", "below-floor"].map((id) =>
        result(id, "case", false),
      ),
      result("held", "case", true),
      result("a-control", "control", false),
    ];
    expect(reachLine(results, links, 0.45, 500)).toBe(
      "of 5 windows missing the newest statement at 500 tokens: 2 with it among the 10 user turns nearest the question or its statement form, 1 through the first statement (among them, the later one reaching 0.45 of it), 2 out of the embedder's reach",
    );
    expect(reachLine(results, links, 0.45, 1000)).toMatch(/^of 0 windows missing .* 0 out of the embedder's reach$/);
    expect(() => reachLine([result("unlinked", "case", false)], links, 0.45, 500)).toThrow(/unlinked/);
  });
});
