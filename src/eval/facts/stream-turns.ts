import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { z } from "zod";
import { loadLocomo } from "../locomo.js";
import type { LabelledFile, LabelledTurn } from "./labelled-set.js";

/** One of the user's messages in a stream, in the order they were said, with its labels (none for most). */
export interface StreamTurn {
  id: string;
  text: string;
  labels: LabelledTurn;
}

export interface ResolvedStream {
  source: string;
  name: string;
  turns: StreamTurn[];
}

const LongMemEvalSchema = z.looseObject({
  question_id: z.string(),
  answer_session_ids: z.array(z.string()),
  haystack_session_ids: z.array(z.string()),
  haystack_dates: z.array(z.string()),
  haystack_sessions: z.array(z.array(z.looseObject({ role: z.string(), content: z.string() }))),
});
type LongMemEvalQuestion = z.infer<typeof LongMemEvalSchema>;

/**
 * The whole stream of each labelled file: every turn of a LoCoMo speaker (a shared photo's
 * caption appended as the pipeline's import appends it), every user turn of a LongMemEval
 * question's evidence sessions in date order or of one session, or the messages written inline.
 * A labelled turn id the data does not hold is an error, never skipped.
 */
export async function resolveStreams(file: LabelledFile, dataDir: string): Promise<ResolvedStream[]> {
  const byId = (turns: LabelledTurn[]) => new Map(turns.map((turn) => [turn.id, turn]));
  const none = (id: string): LabelledTurn => ({ id, facts: [], closes: [] });
  const resolved: ResolvedStream[] = [];
  if (file.source === "fresh") {
    for (const stream of file.streams)
      resolved.push({ ...stream, turns: stream.turns.map((turn) => ({ id: turn.id, text: turn.text ?? "", labels: turn })) });
    return resolved;
  }
  if (file.source === "locomo") {
    const conversation = await loadLocomo(join(dataDir, "locomo-dev", file.location));
    for (const stream of file.streams) {
      const labels = byId(stream.turns);
      const turns = conversation.sessions.flatMap((session) =>
        session.turns
          .filter((turn) => turn.speaker === stream.name)
          .map((turn) => ({
            id: turn.diaId,
            text: turn.caption ? `${turn.text} [shares ${turn.caption}]` : turn.text,
            labels: labels.get(turn.diaId) ?? none(turn.diaId),
          })),
      );
      resolved.push(checked(file, stream.name, stream.turns, { source: file.source, name: stream.name, turns }));
    }
    return resolved;
  }
  if (file.source === "longmemeval") {
    const questions = await readLongMemEval(join(dataDir, "longmemeval-dev", file.location));
    const sessions = new Map<string, { date: string; turns: { role: string; content: string }[] }>();
    for (const question of questions)
      for (const [index, id] of question.haystack_session_ids.entries())
        sessions.set(id, { date: question.haystack_dates[index] as string, turns: question.haystack_sessions[index] ?? [] });
    // The sample is every hash-picked session outside the evidence, no more, no fewer.
    const evidence = new Set(questions.flatMap((question) => question.answer_session_ids));
    const sample = [...sessions.keys()].filter((id) => !evidence.has(id) && inLongMemEvalSample(id)).sort();
    const labelledSample = file.streams.flatMap((stream) => (stream.name.startsWith("session ") ? [stream.name.slice(8)] : [])).sort();
    if (sample.join() !== labelledSample.join())
      throw new Error(`${file.location}: the labelled sample sessions are not the hash-picked ones (${sample.join(", ")})`);
    for (const stream of file.streams) {
      const [kind, id = ""] = stream.name.split(/\s+/, 2);
      const question = questions.find((candidate) => candidate.question_id === id);
      const sessionIds =
        kind === "question"
          ? (question?.answer_session_ids ?? [])
              .slice()
              .sort((a, b) => (sessions.get(a)?.date ?? "").localeCompare(sessions.get(b)?.date ?? ""))
          : [id];
      if (sessionIds.length === 0 || sessionIds.some((sessionId) => !sessions.has(sessionId)))
        throw new Error(`${file.location}: no data for stream "${stream.name}"`);
      const labels = byId(stream.turns);
      const turns = sessionIds.flatMap((sessionId) =>
        (sessions.get(sessionId)?.turns ?? []).flatMap((turn, index) => {
          const turnId = `${sessionId}#${index}`;
          return turn.role === "user" ? [{ id: turnId, text: turn.content, labels: labels.get(turnId) ?? none(turnId) }] : [];
        }),
      );
      resolved.push(checked(file, stream.name, stream.turns, { source: file.source, name: stream.name, turns }));
    }
    return resolved;
  }
  throw new Error(`unknown source "${file.source}"`);
}

function checked(file: LabelledFile, name: string, labelled: LabelledTurn[], stream: ResolvedStream): ResolvedStream {
  const present = new Set(stream.turns.map((turn) => turn.id));
  const missing = labelled.filter((turn) => !present.has(turn.id)).map((turn) => turn.id);
  if (missing.length > 0) throw new Error(`${file.location} / ${name}: labelled turns not in the data: ${missing.join(", ")}`);
  return stream;
}

async function readLongMemEval(path: string): Promise<LongMemEvalQuestion[]> {
  return gunzipSync(await readFile(path))
    .toString("utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => LongMemEvalSchema.parse(JSON.parse(line)));
}

/** The non-evidence LongMemEval sessions labelled as a sample: sha256("lme-sample:" + id) mod 60 = 0. */
export function inLongMemEvalSample(sessionId: string): boolean {
  return BigInt(`0x${createHash("sha256").update(`lme-sample:${sessionId}`).digest("hex")}`) % 60n === 0n;
}
