import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DomainError } from "../errors.js";
import { o200kTokenizer } from "./o200k-tokenizer.js";
import { atSentenceEnd, type CandidateSection, packSections } from "./pack.js";

const words = fc.array(
  fc.constantFrom("memory", "Lisbon", "cello", "🚲", "naïve", "2023-05-08", "co-operate", "\n", "?!", "the", "Kyoto"),
  { minLength: 1, maxLength: 80 },
);
const text = words.map((parts) => parts.join(" "));
const item = fc
  .record({ text, group: fc.constantFrom("2023-05-08", "2023-06-01", "2024-01-02") })
  .map((value) => ({ ...value, sources: [] }));

function sections(
  system: string | undefined,
  memories: { text: string; group?: string; sources: never[] }[],
  history: { text: string; sources: never[] }[],
): CandidateSection[] {
  return [
    ...(system ? [{ kind: "system" as const, title: "System", items: [{ text: system, sources: [] }], share: 0, required: true }] : []),
    { kind: "memories", title: "Relevant memories", items: memories, share: 0.4, grouped: true },
    { kind: "history", title: "Recent conversation", items: history, share: 0.6, chronological: true, contiguous: true },
  ];
}

describe("packSections", () => {
  it("never exceeds the budget, and reports the exact token count of the prompt", () => {
    fc.assert(
      fc.property(
        fc.option(text, { nil: undefined }),
        fc.array(item, { maxLength: 25 }),
        fc.array(item, { maxLength: 25 }),
        fc.integer({ min: 16, max: 3000 }),
        (system, memories, history, budget) => {
          let result: ReturnType<typeof packSections>;
          try {
            result = packSections(sections(system, memories, history), budget, o200kTokenizer);
          } catch (error) {
            // Only a system instruction too large for the budget may refuse.
            expect(error).toBeInstanceOf(DomainError);
            expect(o200kTokenizer.count(`## System\n${system}\n`)).toBeGreaterThan(budget);
            return;
          }
          expect(result.totalTokens).toBe(o200kTokenizer.count(result.prompt));
          expect(result.totalTokens).toBeLessThanOrEqual(budget);
        },
      ),
      { numRuns: Number(process.env.PACK_RUNS ?? 300) },
    );
  });

  it("keeps history contiguous from the newest turn and renders it oldest first", () => {
    const history = ["turn five", "turn four", "turn three", "turn two", "turn one"].map((value) => ({ text: value, sources: [] }));
    const result = packSections(sections(undefined, [], history), 14, o200kTokenizer);
    const kept = result.sections[0]?.items.map((entry) => entry.text);
    expect(kept?.length).toBeGreaterThan(0);
    expect(kept).toEqual(["turn one", "turn two", "turn three", "turn four", "turn five"].slice(5 - (kept?.length ?? 0)));
  });

  it("cuts an oversized history turn at a word boundary instead of dropping the whole history", () => {
    const long = Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ");
    const result = packSections(sections(undefined, [], [{ text: long, sources: [] }]), 60, o200kTokenizer);
    const cut = result.sections[0]?.items[0]?.text ?? "";
    expect(cut.endsWith("…")).toBe(true);
    expect(long.startsWith(cut.slice(0, -1))).toBe(true);
    expect(cut.slice(0, -1)).toMatch(/word\d+$/);
    expect(result.totalTokens).toBeLessThanOrEqual(60);
  });

  it("lists grouped items once under each group header, groups in order", () => {
    const memories = [
      { text: "- later fact", group: "2024-02-01", sources: [] },
      { text: "- early fact", group: "2023-01-01", sources: [] },
      { text: "- another later fact", group: "2024-02-01", sources: [] },
    ];
    const result = packSections(sections(undefined, memories, []), 500, o200kTokenizer);
    expect(result.prompt).toBe("## Relevant memories\n[2023-01-01]\n- early fact\n[2024-02-01]\n- later fact\n- another later fact\n");
    expect(result.totalTokens).toBe(o200kTokenizer.count(result.prompt));
  });

  it("prefers to cut a history turn at a sentence end", () => {
    const long = `First sentence is here. Second sentence follows it. ${Array.from({ length: 100 }, (_, i) => `word${i}`).join(" ")}`;
    const result = packSections(sections(undefined, [], [{ text: long, sources: [] }]), 40, o200kTokenizer);
    expect(result.sections[0]?.items[0]?.text).toBe("First sentence is here. Second sentence follows it.…");
    expect(atSentenceEnd("One. Two three four five six seven eight nine ten eleven")).toBe(
      "One. Two three four five six seven eight nine ten eleven",
    );
  });

  it("gives memories the history's unused share", () => {
    const memories = Array.from({ length: 20 }, (_, i) => ({ text: `- memory number ${i} about cycling in Lisbon`, sources: [] }));
    const result = packSections(sections(undefined, memories, []), 200, o200kTokenizer);
    expect(result.sections.map((section) => section.kind)).toEqual(["memories"]);
    expect(result.totalTokens).toBeGreaterThan(150);
  });

  it("refuses a system instruction that cannot fit with a 422 naming the section", () => {
    expect(() => packSections(sections("x ".repeat(500), [], []), 100, o200kTokenizer)).toThrow(
      expect.objectContaining({ code: "unprocessable", details: expect.objectContaining({ field: "system" }) }),
    );
  });
});
