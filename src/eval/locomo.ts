import { readFile } from "node:fs/promises";
import { z } from "zod";

const TurnSchema = z.looseObject({ speaker: z.string(), dia_id: z.string(), text: z.string(), blip_caption: z.string().optional() });

export interface LocomoSession {
  index: number;
  startedAt: Date;
  /** `caption` describes a shared photo (blip_caption). */
  turns: { speaker: string; diaId: string; text: string; caption?: string }[];
}

export interface LocomoConversation {
  speakerA: string;
  speakerB: string;
  sessions: LocomoSession[];
  qa: { question: string; evidence: string[]; category: number }[];
}

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

/** "1:56 pm on 8 May, 2023" → a Date (UTC, since the data set names no zone). */
export function parseLocomoDate(text: string): Date {
  const match = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})$/i.exec(text.trim());
  if (!match) throw new Error(`unrecognised LoCoMo date: ${text}`);
  const [, hour, minute, meridiem, day, month, year] = match as unknown as string[];
  const monthIndex = MONTHS.indexOf((month as string).toLowerCase());
  if (monthIndex < 0) throw new Error(`unrecognised month in ${text}`);
  const hours = (Number(hour) % 12) + ((meridiem as string).toLowerCase() === "pm" ? 12 : 0);
  return new Date(Date.UTC(Number(year), monthIndex, Number(day), hours, Number(minute)));
}

/** Reads one LoCoMo conversation file (format in shared/data/locomo-dev/README.md). */
export async function loadLocomo(path: string): Promise<LocomoConversation> {
  const raw = JSON.parse(await readFile(path, "utf8")) as Record<string, unknown>;
  const sessions: LocomoSession[] = [];
  for (let index = 1; Array.isArray(raw[`session_${index}`]) || raw[`session_${index}_date_time`]; index++) {
    const turns = z.array(TurnSchema).parse(raw[`session_${index}`] ?? []);
    if (turns.length === 0) continue;
    sessions.push({
      index,
      startedAt: parseLocomoDate(String(raw[`session_${index}_date_time`])),
      turns: turns.map((turn) => ({
        speaker: turn.speaker,
        diaId: turn.dia_id,
        text: turn.text,
        ...(turn.blip_caption ? { caption: turn.blip_caption } : {}),
      })),
    });
  }
  const qa = z
    .array(z.looseObject({ question: z.string(), evidence: z.array(z.string()).default([]), category: z.number() }))
    .parse(raw["qa"] ?? []);
  return { speakerA: String(raw["speaker_a"]), speakerB: String(raw["speaker_b"]), sessions, qa };
}
