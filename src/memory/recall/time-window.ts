import { z } from "zod";
import { whenValid } from "../../util/when-valid.js";

/** Time-window phrases (as TimeWindow.from_keyword names them), in English. */
export const TIME_PHRASES = ["just now", "today", "yesterday", "recently", "last time", "long ago"] as const;
export type TimePhrase = (typeof TIME_PHRASES)[number];

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export const TimeWindowSchema = z.union([
  z.enum(TIME_PHRASES),
  z
    .strictObject({ from: z.iso.datetime({ offset: true }).optional(), to: z.iso.datetime({ offset: true }).optional() })
    .refine((range) => range.from || range.to, { message: "give from, to or both" })
    .refine((range) => !range.from || !range.to || Date.parse(range.from) < Date.parse(range.to), {
      message: "from must be before to",
      when: whenValid("from", "to"),
    }),
]);
export type TimeWindowInput = z.infer<typeof TimeWindowSchema>;

export interface TimeWindow {
  from?: Date;
  to?: Date;
}

/**
 * The window a phrase means, relative to `now`: just now → the last hour;
 * today → since midnight (UTC); yesterday → 24-48 hours ago; recently → the last 3 days;
 * last time → the last 7 days; long ago → the last 30 days.
 */
export function windowForPhrase(phrase: TimePhrase, now: Date): TimeWindow {
  const at = now.getTime();
  switch (phrase) {
    case "just now":
      return { from: new Date(at - HOUR), to: now };
    case "today":
      return { from: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())), to: now };
    case "yesterday":
      return { from: new Date(at - 2 * DAY), to: new Date(at - DAY) };
    case "recently":
      return { from: new Date(at - 3 * DAY), to: now };
    case "last time":
      return { from: new Date(at - 7 * DAY), to: now };
    case "long ago":
      return { from: new Date(at - 30 * DAY), to: now };
  }
}

export function resolveTimeWindow(input: TimeWindowInput, now: Date): TimeWindow {
  if (typeof input === "string") return windowForPhrase(input, now);
  return { ...(input.from ? { from: new Date(input.from) } : {}), ...(input.to ? { to: new Date(input.to) } : {}) };
}

/** The first time phrase a query contains, if any ("what did I say yesterday?" → yesterday). */
export function detectTimePhrase(query: string): TimePhrase | undefined {
  const lower = query.toLowerCase();
  return TIME_PHRASES.find((phrase) => new RegExp(`\\b${phrase}\\b`).test(lower));
}
