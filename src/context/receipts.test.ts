import { describe, expect, it } from "vitest";
import { recalledTurn } from "../../test/fixtures/recalled-memory.js";
import type { LaterStatement } from "../memory/recall/later-statements.js";
import { explainContext } from "./receipts.js";

const note = (memoryId: string): LaterStatement => ({
  memoryId,
  content: memoryId,
  at: new Date(1),
  similarity: 0.6,
  names: [],
  sources: [],
});

const trail = (
  laterOf: Map<string, LaterStatement>,
  offered: string[],
  packed: string[],
  leftWithNote: string[],
  repeated: string[] = [],
) => {
  const turns = ["first", "change", "other"].map((id) => recalledTurn(id));
  return explainContext({
    ranked: turns,
    expanded: turns,
    offered: turns.filter((memory) => offered.includes(memory.id)),
    packed: new Set(packed),
    repeated: new Set(repeated),
    derivedFrom: new Map(),
    laterOf,
    ownStatements: new Set(),
    leftWithNote: new Set(leftWithNote),
    now: new Date(2),
  });
};

const leftOut = (explanation: ReturnType<typeof explainContext>, id: string) =>
  explanation.left_out.find((memory) => memory.memory_id === id);

describe("the receipts of statements and what the user said later", () => {
  it("say a statement was left out with its later statement beside it, and the later one chosen in its own place", () => {
    const explanation = trail(new Map(), ["first", "change", "other"], ["change", "other"], ["first"]);
    expect(leftOut(explanation, "first")).toMatchObject({ left_out_because: "budget" });
    expect(leftOut(explanation, "first")?.reason).toMatch(/left out by the budget with what the user said later beside it/);
    expect(explanation.chosen.map((memory) => memory.memory_id)).toEqual(["change", "other"]);
  });

  it("say a later statement was left out with the statement it was to be shown beside, not that it was shown", () => {
    const explanation = trail(new Map([["first", note("change")]]), ["first", "other"], ["other"], []);
    expect(leftOut(explanation, "change")).toMatchObject({ left_out_because: "budget" });
    expect(leftOut(explanation, "change")?.reason).toMatch(/to be shown beside first, which the budget left out/);
    const shown = trail(new Map([["first", note("change")]]), ["first", "other"], ["first", "other"], []);
    expect(leftOut(shown, "change")).toMatchObject({ left_out_because: "redundant" });
    expect(leftOut(shown, "change")?.reason).toMatch(/shown beside first as what the user said later/);

    const inHistory = trail(new Map([["first", note("change")]]), ["first", "other"], ["other"], [], ["first"]);
    expect(leftOut(inHistory, "change")).toMatchObject({ left_out_because: "redundant" });
    expect(leftOut(inHistory, "change")?.reason).toMatch(/beside first, whose events the window's history already holds/);
  });
});
