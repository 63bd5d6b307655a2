import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { o200kTokenizer } from "../../src/context/o200k-tokenizer.js";
import { type CandidateSection, packSections } from "../../src/context/pack.js";

/**
 * A window without waste (issue 38): a recalled turn, or a summary of turns, whose events the
 * history section holds is not packed again under "Relevant memories" — over random windows, by
 * construction, whatever the budget — while facts about those events (other words) stay.
 */
const SESSION = "00000000-0000-4000-8000-000000000001";
const event = (seq: number) => ({ session_id: SESSION, event_id: `00000000-0000-4000-8000-${String(seq).padStart(12, "0")}`, seq });
const turnText = (seq: number) => `user: turn number ${seq} about ${["Lisbon", "the cello", "Maya's school", "sailing"][seq % 4]}`;

/** A session of `turns` turns: history offers the newest first; recall offers turns, summaries and facts about any of them. */
const windows = fc
  .record({
    turns: fc.integer({ min: 1, max: 40 }),
    historyTurns: fc.integer({ min: 0, max: 40 }),
    recalled: fc.array(
      fc.oneof(
        fc.record({ kind: fc.constant("turn" as const), seq: fc.integer({ min: 1, max: 40 }) }),
        fc.record({ kind: fc.constant("summary" as const), from: fc.integer({ min: 1, max: 40 }), length: fc.integer({ min: 1, max: 8 }) }),
        fc.record({ kind: fc.constant("fact" as const), seq: fc.integer({ min: 1, max: 40 }) }),
      ),
      { maxLength: 30 },
    ),
    budget: fc.integer({ min: 40, max: 2500 }),
  })
  .map(({ turns, historyTurns, recalled, budget }) => {
    const inSession = (seq: number) => ((seq - 1) % turns) + 1;
    const history = Array.from({ length: Math.min(historyTurns, turns) }, (_, i) => turns - i).map((seq) => ({
      text: turnText(seq),
      sources: [event(seq)],
    }));
    const facts: CandidateSection["items"] = [];
    const memories: CandidateSection["items"] = [];
    recalled.forEach((entry, index) => {
      if (entry.kind === "fact") {
        const seq = inSession(entry.seq);
        facts.push({ text: `- User fact ${index} from turn ${seq}.`, memory_id: `fact-${index}`, sources: [event(seq)] });
      } else if (entry.kind === "turn") {
        const seq = inSession(entry.seq);
        memories.push({ text: `- ${turnText(seq)}`, memory_id: `turn-${index}`, group: "2025-03-01", sources: [event(seq)] });
      } else {
        const seqs = Array.from({ length: entry.length }, (_, i) => inSession(entry.from + i));
        memories.push({
          text: `- The user said: ${seqs.map((seq) => `"${turnText(seq)}"`).join(" ")}`,
          memory_id: `summary-${index}`,
          group: "2025-03-01",
          sources: [...new Set(seqs)].map(event),
        });
      }
    });
    const sections: CandidateSection[] = [
      { kind: "facts", title: "What we know about the user", items: facts, share: 0.2, grouped: true },
      { kind: "memories", title: "Relevant memories", items: memories, share: 0.3, grouped: true, yieldsTo: "history" },
      { kind: "history", title: "Recent conversation", items: history, share: 0.4, chronological: true, contiguous: true },
    ];
    return { sections, budget };
  });

describe("a window without waste", () => {
  it("never packs a memory whose events the history holds, never a text twice, and never exceeds the budget", () => {
    fc.assert(
      fc.property(windows, ({ sections, budget }) => {
        const window = packSections(sections, budget, o200kTokenizer);
        expect(window.totalTokens).toBeLessThanOrEqual(budget);
        const inHistory = new Set(
          window.sections
            .filter((section) => section.kind === "history")
            .flatMap((section) => section.items.flatMap((item) => item.sources)),
        );
        const held = new Set([...inHistory].map((source) => source.event_id));
        for (const item of window.sections.find((section) => section.kind === "memories")?.items ?? []) {
          expect(item.sources.every((source) => held.has(source.event_id))).toBe(false);
        }
        // No line of text twice in the prompt: a turn is in history or in memories, not both.
        const lines = window.prompt
          .split("\n")
          .map((line) => line.replace(/^- /, ""))
          .filter((line) => line.startsWith("user: "));
        expect(new Set(lines).size).toBe(lines.length);
      }),
      { numRuns: Number(process.env.PACK_RUNS ?? 300) },
    );
  });

  it("gives the room a repeated turn leaves to the next memory", () => {
    const history = [3, 2, 1].map((seq) => ({ text: turnText(seq), sources: [event(seq)] }));
    const memories = [2, 7].map((seq) => ({
      text: `- ${turnText(seq)}`,
      memory_id: `turn-${seq}`,
      group: "2025-03-01",
      sources: [event(seq)],
    }));
    const window = packSections(
      [
        { kind: "memories", title: "Relevant memories", items: memories, share: 0.5, grouped: true, yieldsTo: "history" },
        { kind: "history", title: "Recent conversation", items: history, share: 0.5, chronological: true, contiguous: true },
      ],
      2000,
      o200kTokenizer,
    );
    expect(window.sections.find((section) => section.kind === "memories")?.items.map((item) => item.memory_id)).toEqual(["turn-7"]);
    expect(window.sections.find((section) => section.kind === "history")?.items).toHaveLength(3);
  });
});
