import { sql } from "drizzle-orm";
import type { Runtime } from "../../functions/node-runtime.js";
import { waitForSettled } from "../../functions/wait-for-settled.js";
import { o200kTokenizer } from "../context/o200k-tokenizer.js";
import { queryRows } from "../db/database.js";
import type { ManualClock } from "../util/clock.js";
import { bm25Ranker, newestFirst, packTurns, type Turn } from "./baselines.js";
import type { LocomoConversation } from "./locomo.js";
import { serviceRequest as request } from "./service-request.js";

const DAY_MS = 86_400_000;

export interface LocomoImport {
  userId: string;
  turns: Turn[];
  /** dia_id of every event, by event id. */
  diaByEvent: Map<string, string>;
  /** When the last session started: "fresh" is the day after. */
  lastSessionAt: Date;
}

/**
 * Imports a LoCoMo conversation as a user would live it: each session at its own date (the clock
 * set to it), ended, and its memory derived before the next one starts — so every memory is
 * created, and ages, on the conversation's own timeline.
 */
export async function importLocomo(
  runtime: Runtime,
  clock: ManualClock,
  conversation: LocomoConversation,
  userId: string,
): Promise<LocomoImport> {
  const turns: Turn[] = [];
  for (const session of conversation.sessions) {
    clock.set(session.startedAt);
    const created = await request(runtime, "POST", "/v1/sessions", { user_id: userId, started_at: session.startedAt.toISOString() });
    const events = session.turns.map((turn, i) => {
      const text = turn.caption ? `${turn.text} [shares ${turn.caption}]` : turn.text;
      turns.push({ diaId: turn.diaId, speaker: turn.speaker, text, order: turns.length });
      return {
        type: "message",
        role: turn.speaker === conversation.speakerA ? "user" : "assistant",
        content: text,
        data: { speaker: turn.speaker, dia_id: turn.diaId },
        occurred_at: new Date(session.startedAt.getTime() + i * 30_000).toISOString(),
      };
    });
    await request(runtime, "POST", `/v1/sessions/${created.id}/events`, { events });
    clock.set(new Date(session.startedAt.getTime() + events.length * 30_000));
    await request(runtime, "POST", `/v1/sessions/${created.id}/end`);
    await waitForSettled(runtime.app, userId, { intervalMs: 100 });
  }
  const lastSessionAt = conversation.sessions.at(-1)?.startedAt ?? clock.now();
  return { userId, turns, diaByEvent: await diasOfEvents(runtime, userId), lastSessionAt };
}

/** The turns of a conversation as `importLocomo` numbers them, without importing it (a kept import is answered again). */
export function locomoTurns(conversation: LocomoConversation): Turn[] {
  return conversation.sessions
    .flatMap((session) =>
      session.turns.map((turn) => ({
        diaId: turn.diaId,
        speaker: turn.speaker,
        text: turn.caption ? `${turn.text} [shares ${turn.caption}]` : turn.text,
      })),
    )
    .map((turn, order) => ({ ...turn, order }));
}

/** The dia_id of each of the user's events, as the import tagged them. */
export async function diasOfEvents(runtime: Runtime, userId: string): Promise<Map<string, string>> {
  const rows = await queryRows<{ id: string; dia_id: string }>(
    runtime.database.db,
    sql`SELECT id, data ->> 'dia_id' AS dia_id FROM session_events WHERE user_id = ${userId}`,
  );
  return new Map(rows.map((row) => [row.id, row.dia_id]));
}

export interface QuestionRecall {
  category: number;
  /** Evidence recall by budget: ours, and the BM25 and newest-turns baselines on the same turns. */
  ours: Record<number, number>;
  bm25: Record<number, number>;
  newest: Record<number, number>;
}

/**
 * Evidence recall of context windows (the project's metric, shared/data/locomo-dev/README.md):
 * for each question of categories 1-4, the share of its evidence turns a window of each budget
 * contains — directly, or through the source events of the memories it holds.
 */
export async function evaluateLocomo(
  runtime: Runtime,
  conversation: LocomoConversation,
  imported: LocomoImport,
  budgets: number[],
): Promise<QuestionRecall[]> {
  const bm25 = bm25Ranker(imported.turns);
  const newest = newestFirst(imported.turns);
  const results: QuestionRecall[] = [];
  for (const qa of conversation.qa.filter((question) => question.category >= 1 && question.category <= 4 && question.evidence.length > 0)) {
    const evidence = new Set(qa.evidence.flatMap((id) => id.split(/[;,\s]+/)).filter(Boolean));
    const recall = (contained: Set<string>) => [...evidence].filter((id) => contained.has(id)).length / evidence.size;
    const ranked = bm25(qa.question);
    const result: QuestionRecall = { category: qa.category, ours: {}, bm25: {}, newest: {} };
    for (const budget of budgets) {
      const window = (await request(runtime, "POST", "/v1/context", {
        user_id: imported.userId,
        query: qa.question,
        max_tokens: budget,
      })) as unknown as {
        sections: { items: { sources: { event_id: string }[] }[] }[];
        total_tokens: number;
      };
      if (window.total_tokens > budget) throw new Error(`window over budget: ${window.total_tokens} > ${budget}`);
      const contained = new Set(
        window.sections.flatMap((section) =>
          section.items.flatMap((item) => item.sources.map((source) => imported.diaByEvent.get(source.event_id) ?? "")),
        ),
      );
      result.ours[budget] = recall(contained);
      result.bm25[budget] = recall(packTurns(ranked, budget, o200kTokenizer));
      result.newest[budget] = recall(packTurns(newest, budget, o200kTokenizer));
    }
    results.push(result);
  }
  return results;
}

/**
 * Lives on without talking: from `from` day by day to `days` days later, with the nightly decay
 * pass of the default settings each night (what the scheduled function does), on the clock.
 */
export async function liveOn(
  runtime: Runtime,
  clock: ManualClock,
  userId: string,
  from: Date,
  days: number,
): Promise<{ forgotten: number }> {
  let forgotten = 0;
  for (let day = 1; day <= days; day++) {
    // 03:00 the next night, as DECAY_CRON's default.
    const night = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate() + day, 3));
    clock.set(night);
    const report = (await request(runtime, "POST", "/v1/decay/run", { user_id: userId, dry_run: false })) as unknown as {
      forgotten: unknown[];
    };
    forgotten += report.forgotten.length;
  }
  clock.set(new Date(from.getTime() + days * DAY_MS));
  return { forgotten };
}

export const mean = (values: number[]) => (values.length ? values.reduce((sum, value) => sum + value, 0) / values.length : Number.NaN);
