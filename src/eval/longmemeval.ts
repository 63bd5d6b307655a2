import { readFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import { z } from "zod";

const TurnSchema = z.looseObject({ role: z.string(), content: z.string(), has_answer: z.boolean().optional() });

const QuestionSchema = z.looseObject({
  question_id: z.string(),
  question_type: z.string(),
  question: z.string(),
  question_date: z.string(),
  answer_session_ids: z.array(z.string()),
  haystack_session_ids: z.array(z.string()),
  haystack_dates: z.array(z.string()),
  haystack_sessions: z.array(z.array(TurnSchema)),
});

/** One turn of a haystack session; `id` is `<session id>#<index in the session>`. */
export interface LongMemEvalTurn {
  id: string;
  role: "user" | "assistant";
  content: string;
  /** Marked by the data set as holding (part of) the answer: the evidence. */
  hasAnswer: boolean;
}

export interface LongMemEvalSession {
  id: string;
  date: Date;
  turns: LongMemEvalTurn[];
}

export interface LongMemEvalQuestion {
  id: string;
  /** single-session-user, multi-session, knowledge-update, temporal-reasoning… */
  type: string;
  question: string;
  /** When the question is asked: "now" for the context window. */
  askedAt: Date;
  answerSessionIds: string[];
  /** The haystack, oldest first (the file does not always list it in date order). */
  sessions: LongMemEvalSession[];
}

/** "2023/05/30 (Tue) 17:14" → a Date (UTC, since the data set names no zone). */
export function parseLongMemEvalDate(text: string): Date {
  const match = /^(\d{4})\/(\d{2})\/(\d{2})\s*(?:\([A-Za-z]+\))?\s*(\d{1,2}):(\d{2})$/.exec(text.trim());
  if (!match) throw new Error(`unrecognised LongMemEval date: ${text}`);
  const [, year, month, day, hour, minute] = match.map(Number) as number[];
  return new Date(Date.UTC(year as number, (month as number) - 1, day, hour, minute));
}

/** The question's evidence turns: those marked `has_answer` (shared/data/longmemeval-dev/README.md). */
export function evidenceTurns(question: LongMemEvalQuestion): LongMemEvalTurn[] {
  return question.sessions.flatMap((session) => session.turns.filter((turn) => turn.hasAnswer));
}

/** Parses one question of the file; sessions sorted by date, ties in the file's order. */
export function toQuestion(raw: unknown): LongMemEvalQuestion {
  const parsed = QuestionSchema.parse(raw);
  if (
    parsed.haystack_dates.length !== parsed.haystack_sessions.length ||
    parsed.haystack_session_ids.length !== parsed.haystack_sessions.length
  )
    throw new Error(`${parsed.question_id}: haystack ids, dates and sessions differ in length`);
  const sessions = parsed.haystack_sessions.map((turns, index) => {
    const id = parsed.haystack_session_ids[index] as string;
    return {
      id,
      date: parseLongMemEvalDate(parsed.haystack_dates[index] as string),
      turns: turns.map((turn, position) => ({
        id: `${id}#${position}`,
        role: turn.role === "assistant" ? ("assistant" as const) : ("user" as const),
        content: turn.content,
        hasAnswer: turn.has_answer === true,
      })),
    };
  });
  return {
    id: parsed.question_id,
    type: parsed.question_type,
    question: parsed.question,
    askedAt: parseLongMemEvalDate(parsed.question_date),
    answerSessionIds: parsed.answer_session_ids,
    // Array.prototype.sort is stable: sessions of the same minute keep the file's order.
    sessions: sessions.sort((a, b) => a.date.getTime() - b.date.getTime()),
  };
}

/** Reads `questions.jsonl.gz` of a LongMemEval directory (format in shared/data/longmemeval-dev/README.md). */
export async function loadLongMemEval(path: string): Promise<LongMemEvalQuestion[]> {
  return gunzipSync(await readFile(path))
    .toString("utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => toQuestion(JSON.parse(line)));
}
