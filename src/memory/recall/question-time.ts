import * as chrono from "chrono-node";
import type { TimeWindow } from "./time-window.js";

/** What a question says of time: a span of world time it names, and whether it asks for the newest or the earliest state. */
export interface QuestionTime {
  /** "last Saturday", "two weeks ago", "in May", "last month": the span it names, at the question's clock. */
  range?: TimeWindow;
  /** "currently", "these days", "latest" ask for what holds now; "first", "originally", "used to" for what came first. */
  order?: "newest" | "oldest";
}

const DAY = 86_400_000;

/** Temporal adverbs that ask for the present state, or for the earliest (a closed class of English words). */
const NEWEST =
  /\b(?:currently|current|now|nowadays|these days|at the moment|at present|presently|latest|most recent(?:ly)?|lately|still|any ?more|any longer)\b/i;
const OLDEST =
  /\b(?:first|firstly|originally|initially|earliest|at the start|used to|to begin with|previous(?:ly)?|before (?:i|we) (?:changed|updated|switched|moved))\b/i;

/**
 * Reads the time a question is about, at `now` (the question's clock): the span a date
 * expression names (chrono-node reads it; a day named is that day, widened by a day and by 15 % of
 * its distance from now for "two weeks ago"-style estimates, and a weekday named back to the same
 * weekday a week earlier; a month named is the whole month; a date after `now` is no question about
 * the past and is dropped), and the order it asks for.
 *
 * @example
 * readQuestionTime("What did I cook last month?", new Date("2023-05-30T12:00:00Z"));
 * // { range: { from: 2023-04-01, to: 2023-05-01 } }
 */
export function readQuestionTime(question: string, now: Date): QuestionTime {
  const reading: QuestionTime = {};
  const range = namedSpan(question, now);
  if (range) reading.range = range;
  const newest = NEWEST.test(question);
  const oldest = OLDEST.test(question);
  if (newest !== oldest) reading.order = newest ? "newest" : "oldest";
  return reading;
}

/**
 * What the parser reads as a date but names the present moment, not a span to look in ("What do I
 * drive now?"): `NEWEST` reads it, as it reads "currently".
 */
const PRESENT_MOMENT = /^now$/i;

function namedSpan(question: string, now: Date): TimeWindow | undefined {
  for (const result of chrono.parse(question, now, { forwardDate: false })) {
    if (PRESENT_MOMENT.test(result.text)) continue;
    const start = result.start.date();
    if (start.getTime() > now.getTime()) continue;
    if (result.end) return { from: startOfDay(start), to: new Date(startOfDay(result.end.date()).getTime() + DAY) };
    const certain = (component: "day" | "weekday" | "month" | "year") => result.start.isCertain(component);
    if (!certain("day") && !certain("weekday") && certain("month")) {
      const from = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), 1));
      return { from, to: new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1)) };
    }
    if (!certain("day") && !certain("weekday") && !certain("month") && certain("year"))
      return { from: new Date(Date.UTC(start.getUTCFullYear(), 0, 1)), to: new Date(Date.UTC(start.getUTCFullYear() + 1, 0, 1)) };
    const slack = DAY + 0.15 * Math.max(0, now.getTime() - start.getTime());
    // "Last Tuesday" said on a Wednesday is yesterday to some and eight days ago to others: both.
    const sameWeekdayBefore = certain("weekday") && !certain("day") ? 7 * DAY : 0;
    return {
      from: new Date(startOfDay(start).getTime() - slack - sameWeekdayBefore),
      to: new Date(startOfDay(start).getTime() + DAY + slack),
    };
  }
  return undefined;
}

const startOfDay = (date: Date) => new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
