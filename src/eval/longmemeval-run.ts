import { sql } from "drizzle-orm";
import { z } from "zod";
import type { Runtime } from "../../functions/node-runtime.js";
import { waitForSettled } from "../../functions/wait-for-settled.js";
import { o200kTokenizer } from "../context/o200k-tokenizer.js";
import { queryRows } from "../db/database.js";
import type { ManualClock } from "../util/clock.js";
import { bm25Ranker, packTurns, type Turn, vectorRanker } from "./baselines.js";
import { evidenceRecall, turnsBySource, turnsByText } from "./evidence-recall.js";
import { evidenceTurns, type LongMemEvalQuestion } from "./longmemeval.js";
import { serviceRequest } from "./service-request.js";

/** Seconds between two turns of a session: the data set dates sessions, not turns. */
const TURN_SPACING_MS = 30_000;

export interface HaystackImport {
  userId: string;
  /** Turn id (`<session id>#<index>`) of every event, by event id. */
  turnByEvent: Map<string, string>;
  /** When the last session's last turn was said: the question is never asked before it. */
  lastTurnAt: Date;
}

/**
 * Imports a question's haystack as one user living it: each session at its own date (the clock
 * set to it), one event per turn with its role, then ended; every session is posted first and the
 * memory derived once, after the last. The service must stamp what it derives at the end of its
 * session (`startRuntime(…, { deriveAtSessionEnd: true })`): the memory is then the one a
 * session-by-session import derives, each session at its end, as the user would have lived it
 * (`test/database/bulk-import.test.ts` compares the two). A session dated before the previous
 * one's last turn (a few share a minute) starts right after it instead, so the timeline never runs
 * backwards.
 */
export async function importHaystack(
  runtime: Runtime,
  clock: ManualClock,
  question: LongMemEvalQuestion,
  userId: string,
): Promise<HaystackImport> {
  let previousEnd = 0;
  for (const session of question.sessions) {
    const startedAt = new Date(Math.max(session.date.getTime(), previousEnd));
    clock.set(startedAt);
    const created = await serviceRequest(runtime, "POST", "/v1/sessions", {
      user_id: userId,
      started_at: startedAt.toISOString(),
      metadata: { longmemeval_session: session.id },
    });
    const events = session.turns.map((turn, index) => ({
      type: "message",
      role: turn.role,
      content: turn.content,
      data: { turn_id: turn.id },
      occurred_at: new Date(startedAt.getTime() + index * TURN_SPACING_MS).toISOString(),
    }));
    if (events.length > 0) await serviceRequest(runtime, "POST", `/v1/sessions/${created.id}/events`, { events });
    previousEnd = startedAt.getTime() + Math.max(1, events.length) * TURN_SPACING_MS;
    clock.set(new Date(previousEnd));
    await serviceRequest(runtime, "POST", `/v1/sessions/${created.id}/end`);
  }
  await waitForSettled(runtime.app, userId, { intervalMs: 200 });
  return { userId, turnByEvent: await turnsOfEvents(runtime, userId), lastTurnAt: new Date(previousEnd) };
}

/** The turn id of each of the user's events, as the import tagged them. */
export async function turnsOfEvents(runtime: Runtime, userId: string): Promise<Map<string, string>> {
  const rows = await queryRows<{ id: string; turn_id: string }>(
    runtime.database.db,
    sql`SELECT id, data ->> 'turn_id' AS turn_id FROM session_events WHERE user_id = ${userId}`,
  );
  return new Map(rows.map((row) => [row.id, row.turn_id]));
}

/** One question's evidence recall by budget: by source events (as LoCoMo), verbatim text, and BM25 over raw turns. */
export interface QuestionRecall {
  id: string;
  type: string;
  evidence: number;
  bySource: Record<number, number>;
  byText: Record<number, number>;
  bm25: Record<number, number>;
  /** The nearest raw turns by the service's embedder, packed into the same budget. */
  vector: Record<number, number>;
  /** Memories in the window the graph channel ranked (from the window's receipts), by budget: does the channel fire at all. */
  graphRanked: Record<number, number>;
}

const WindowSchema = z.looseObject({
  total_tokens: z.number(),
  sections: z.array(
    z.looseObject({
      items: z.array(z.looseObject({ text: z.string(), sources: z.array(z.looseObject({ event_id: z.string() })) })),
    }),
  ),
  explanation: z.looseObject({
    chosen: z.array(z.looseObject({ signals: z.looseObject({ channels: z.array(z.looseObject({ channel: z.string() })) }) })),
  }),
});

/**
 * Asks for a context window with the question as the query, at the question's date, under each
 * budget, and scores the evidence turns it holds. BM25 packs the same haystack's raw turns
 * (`role: content`) into the same budget, as LoCoMo's baseline does.
 */
export async function evaluateQuestion(
  runtime: Runtime,
  clock: ManualClock,
  question: LongMemEvalQuestion,
  imported: HaystackImport,
  budgets: readonly number[],
): Promise<QuestionRecall> {
  const evidence = evidenceTurns(question);
  const evidenceIds = evidence.map((turn) => turn.id);
  const turns: Turn[] = question.sessions
    .flatMap((session) => session.turns)
    .map((turn, order) => ({ diaId: turn.id, speaker: turn.role, text: turn.content, order }));
  const ranked = bm25Ranker(turns)(question.question);
  const nearest = await (await vectorRanker(turns, runtime.providers.embedder))(question.question);
  clock.set(new Date(Math.max(question.askedAt.getTime(), imported.lastTurnAt.getTime())));
  const result: QuestionRecall = {
    id: question.id,
    type: question.type,
    evidence: evidence.length,
    bySource: {},
    byText: {},
    bm25: {},
    vector: {},
    graphRanked: {},
  };
  for (const budget of budgets) {
    const window = WindowSchema.parse(
      await serviceRequest(runtime, "POST", "/v1/context", {
        user_id: imported.userId,
        query: question.question,
        max_tokens: budget,
        // Receipts only: the window is the same with or without them.
        explain: true,
      }),
    );
    if (window.total_tokens > budget) throw new Error(`window over budget: ${window.total_tokens} > ${budget}`);
    const items = window.sections.flatMap((section) => section.items);
    result.bySource[budget] = evidenceRecall(evidenceIds, turnsBySource(items, imported.turnByEvent));
    result.byText[budget] = evidenceRecall(evidenceIds, turnsByText(items, evidence));
    result.bm25[budget] = evidenceRecall(evidenceIds, packTurns(ranked, budget, o200kTokenizer));
    result.vector[budget] = evidenceRecall(evidenceIds, packTurns(nearest, budget, o200kTokenizer));
    result.graphRanked[budget] = window.explanation.chosen.filter((memory) =>
      memory.signals.channels.some((place) => place.channel === "graph"),
    ).length;
  }
  return result;
}
