import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { OFFLINE_EXTRACTOR } from "../../src/providers/offline/offline-language-model.js";
import { factSessions } from "../fixtures/fact-sessions.js";
import { call, startTestRuntime } from "../fixtures/runtime.js";

/**
 * The offline reader through the API, a session at a time, on the embedded default (or on
 * Postgres under scripts/test-postgres.sh): what users say of themselves, what a later statement
 * changes, and which extractor wrote each fact. Sentences written for this test; the fact sets are
 * scored by `npm run eval:facts`, not here.
 */
let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime();
});
afterAll(() => runtime.close());

const { session, current, retracted, factNamed, historyOf } = factSessions(() => runtime);
const mentioning = (contents: string[], pattern: RegExp) => contents.filter((content) => pattern.test(content));

describe("what users say of themselves", () => {
  it("home, work, people, animals, tastes and pastimes, each as a sentence of its own", async () => {
    await session("saga", 10, [
      "I live in Tartu with two flatmates.",
      "I work as a glassblower at Vetro Studio.",
      "I drove my daughter Saskia to her recital.",
      "We have a rabbit called Turnip.",
      "I can't stand karaoke.",
      "I speak Danish and Welsh.",
      "I'm learning Icelandic.",
    ]);
    expect(await current("saga")).toEqual(
      expect.arrayContaining([
        "User lives in Tartu.",
        "User works as a glassblower.",
        "User works at Vetro Studio.",
        "User's daughter is named Saskia.",
        "User's rabbit is named Turnip.",
        "User can't stand karaoke.",
        "User speaks Danish.",
        "User speaks Welsh.",
        "User is learning Icelandic.",
      ]),
    );
  });

  it("controls: a question, a wish, a plan in progress, someone else's words and someone else's state write nothing", async () => {
    await session("ctrl", 10, [
      "Should I move to Hobart?",
      "I wish I worked at the observatory.",
      "I'm moving to Narva next spring.",
      "My cousin says she lives in Pärnu.",
      "My aunt plays the accordion.",
    ]);
    expect(mentioning(await current("ctrl"), /Hobart|observatory|Narva|Pärnu|accordion/)).toEqual([]);
  });
});

describe("a later statement changes what is held", () => {
  it("a move supersedes the home; one in progress does not", async () => {
    await session("odd", 10, ["I live in Tartu."]);
    await session("odd", 30, ["I'm moving to Narva in the autumn."]);
    expect(await current("odd")).toContain("User lives in Tartu.");
    await session("odd", 60, ["We moved to Narva in October."]);
    const now = await current("odd");
    expect(now).toContain("User lives in Narva.");
    expect(now).not.toContain("User lives in Tartu.");
    const tartu = await factNamed("odd", "User lives in Tartu.");
    expect((await historyOf(tartu.id)).some((line) => /^SUPERSEDE superseded by/.test(line))).toBe(true);
  });

  it("'no longer', leaving a job, selling, separating and a death end what they name, and only that", async () => {
    await session("ivo", 10, [
      "I'm a plumber.",
      "I work at Brakstad Pipes.",
      "I drive a Skoda.",
      "My husband is Teodor.",
      "I have two cats, Moth and Juniper.",
      "I play the trombone.",
    ]);
    await session("ivo", 40, ["I quit my job.", "I sold the Skoda.", "I broke up with Teodor.", "Moth died last week."]);
    const now = await current("ivo");
    expect(mentioning(now, /plumber|Brakstad|Skoda|Teodor|Moth/)).toEqual([]);
    expect(now).toEqual(expect.arrayContaining(["User's cat is named Juniper.", "User plays the trombone."]));
    expect(await retracted("ivo")).toEqual(
      expect.arrayContaining([
        "User works as a plumber.",
        "User drives a Skoda.",
        "User's husband is Teodor.",
        "User's cat is named Moth.",
      ]),
    );
  });

  it("a repair restates the held value as a correction, with history", async () => {
    await session("rey", 10, ["I live in Tartu."]);
    await session("rey", 11, ["Sorry, I meant Narva, not Tartu."]);
    expect(await current("rey")).toContain("User lives in Narva.");
    const tartu = await factNamed("rey", "User lives in Tartu.");
    expect(await historyOf(tartu.id)).toContainEqual(expect.stringMatching(/^SUPERSEDE corrected by /));
    const narva = await factNamed("rey", "User lives in Narva.");
    expect(await historyOf(narva.id)).toContainEqual(expect.stringMatching(/^ADD corrects /));
  });
});

describe("which extractor wrote each fact", () => {
  it("every fact, its history and the export name the offline rules and their version", async () => {
    await session("una", 10, ["I live in Tartu."]);
    await session("una", 40, ["We moved to Narva."]);
    const narva = await factNamed("una", "User lives in Narva.");
    const read = (await call(runtime.app, "GET", `/v1/memories/${narva.id}`)).body;
    expect(read.metadata.extractor).toEqual(OFFLINE_EXTRACTOR);
    expect(OFFLINE_EXTRACTOR.version).toMatch(/^[0-9a-f]{12}$/);
    const history = (await call(runtime.app, "GET", `/v1/memories/${narva.id}/history`)).body.history;
    expect(history[0]).toMatchObject({ operation: "ADD", after: { extractor: OFFLINE_EXTRACTOR, stated_operation: "UPDATE" } });
    const tartu = await factNamed("una", "User lives in Tartu.");
    const superseded = (await call(runtime.app, "GET", `/v1/memories/${tartu.id}/history`)).body.history;
    expect(superseded.find((entry: { operation: string }) => entry.operation === "SUPERSEDE")).toMatchObject({
      after: { extractor: OFFLINE_EXTRACTOR, stated_operation: "UPDATE" },
    });
    const exported = await (await runtime.app.request("/v1/users/una/export")).text();
    const records = exported
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    const facts = records.filter((record) => record.kind === "memory" && record.type === "semantic");
    expect(facts.length).toBeGreaterThanOrEqual(2);
    for (const record of facts) expect(record.metadata.extractor).toEqual(OFFLINE_EXTRACTOR);
    const added = records.filter(
      (record) => record.kind === "history" && record.operation === "ADD" && facts.some((fact) => fact.id === record.memory_id),
    );
    expect(added.map((record) => record.after.extractor)).toEqual(facts.map(() => OFFLINE_EXTRACTOR));
  });
});
