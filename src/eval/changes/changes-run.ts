import { z } from "zod";
import type { Runtime } from "../../../functions/node-runtime.js";
import type { ManualClock } from "../../util/clock.js";
import { turnsBySource, type WindowItem } from "../evidence-recall.js";
import type { LongMemEvalQuestion, LongMemEvalSession } from "../longmemeval.js";
import { serviceRequest } from "../service-request.js";
import type { HistoryCase } from "./case-set.js";

/** Where in the history the first statement and the later one are said: a quarter and three quarters of the way in. */
const FIRST_AT = 0.25;
const LATER_AT = 0.75;

/** Turn ids of the two inserted statements. */
export const firstTurnId = (historyCase: HistoryCase) => `${historyCase.id}:first`;
export const laterTurnId = (historyCase: HistoryCase) => `${historyCase.id}:later`;

/**
 * A haystack with the case's two statements said by the user inside it: the first right after the
 * turn a quarter of the way in, the later one (the change, or the control's mention) right after
 * the turn three quarters of the way in, each in the session that holds that turn. Nothing else
 * of the haystack changes; its evidence marks are dropped (the case asks its own question).
 */
export function withCaseInside(haystack: LongMemEvalQuestion, historyCase: HistoryCase): LongMemEvalQuestion {
  const total = haystack.sessions.reduce((sum, session) => sum + session.turns.length, 0);
  const later = historyCase.kind === "case" ? historyCase.change : historyCase.later;
  const insertions = [
    { at: Math.floor(total * FIRST_AT), id: firstTurnId(historyCase), content: historyCase.first },
    { at: Math.floor(total * LATER_AT), id: laterTurnId(historyCase), content: later },
  ];
  let position = 0;
  const sessions: LongMemEvalSession[] = haystack.sessions.map((session) => {
    const turns = [];
    for (const turn of session.turns) {
      turns.push({ ...turn, hasAnswer: false });
      for (const insertion of insertions)
        if (insertion.at === position) turns.push({ id: insertion.id, role: "user" as const, content: insertion.content, hasAnswer: true });
      position++;
    }
    return { ...session, turns };
  });
  return { ...haystack, id: `${historyCase.id}@${haystack.id}`, question: historyCase.question, sessions };
}

/** What one window held of a case, at one budget. */
export interface CaseWindow {
  budget: number;
  /** The later statement is in the window: its event among an item's sources, or its words. */
  newestHeld: boolean;
  /** Words of the old state are in the window (change cases). */
  oldShown: boolean;
  /** Words of the state that still holds are in the window (controls). */
  kept: boolean;
  tokens: number;
}

export interface CaseResult {
  id: string;
  kind: HistoryCase["kind"];
  haystack: string;
  windows: CaseWindow[];
}

const WindowSchema = z.looseObject({
  total_tokens: z.number(),
  sections: z.array(
    z.looseObject({ items: z.array(z.looseObject({ text: z.string(), sources: z.array(z.looseObject({ event_id: z.string() })) })) }),
  ),
});

/** The windows of a case whose history is already imported. */
export async function askCase(
  runtime: Runtime,
  clock: ManualClock,
  historyCase: HistoryCase,
  haystackId: string,
  imported: { userId: string; turnByEvent: ReadonlyMap<string, string>; lastTurnAt: Date },
  budgets: readonly number[],
): Promise<CaseResult> {
  clock.set(new Date(imported.lastTurnAt.getTime() + 86_400_000));
  const windows: CaseWindow[] = [];
  for (const budget of budgets) {
    const window = WindowSchema.parse(
      await serviceRequest(runtime, "POST", "/v1/context", { user_id: imported.userId, query: historyCase.question, max_tokens: budget }),
    );
    const items: WindowItem[] = window.sections.flatMap((section) => section.items);
    const held = turnsBySource(items, imported.turnByEvent);
    const text = items.map((item) => item.text).join("\n");
    windows.push({
      budget,
      newestHeld: held.has(laterTurnId(historyCase)) || (historyCase.kind === "case" && historyCase.new.test(text)),
      oldShown: historyCase.kind === "case" && historyCase.old.test(text),
      kept: historyCase.kind === "control" && (historyCase.holds.test(text) || held.has(firstTurnId(historyCase))),
      tokens: window.total_tokens,
    });
  }
  return { id: historyCase.id, kind: historyCase.kind, haystack: haystackId, windows };
}

/** Per budget: change cases whose newest statement the window holds, those showing the old state alone, and controls kept. */
export function summarise(results: readonly CaseResult[], budgets: readonly number[]) {
  const changes = results.filter((result) => result.kind === "case");
  const controls = results.filter((result) => result.kind === "control");
  const at = (result: CaseResult, budget: number) => result.windows.find((window) => window.budget === budget) as CaseWindow;
  return budgets.map((budget) => ({
    budget,
    cases: changes.length,
    newestHeld: changes.filter((result) => at(result, budget).newestHeld).length,
    oldAlone: changes.filter((result) => at(result, budget).oldShown && !at(result, budget).newestHeld).length,
    controls: controls.length,
    kept: controls.filter((result) => at(result, budget).kept).length,
  }));
}
