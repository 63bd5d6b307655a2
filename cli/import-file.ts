import { readFile } from "node:fs/promises";
import { z } from "zod";
import { ExportRecordSchema } from "../functions/json/export-record.js";
import { EVENT_ROLES } from "../src/sessions/schemas.js";
import { issuesLine } from "../src/util/issues-line.js";
import { CommandError } from "./service.js";

/**
 * What `mnemo import` reads, in either of two formats (the first line decides, every line must be
 * of it):
 *
 * - events, one a line: `{session, user_id, app_id?, type?, role, content, occurred_at?,
 *   idempotency_key?}` — `session` is the caller's own id of the conversation;
 * - what `mnemo export` (and `GET /v1/users/:id/export`) writes: `{kind: "session" | "event" |
 *   "memory" | "history", …}`. Sessions and their events are the log, imported as they were;
 *   memories added through the API (`metadata.origin: "api"`, current ones) are added again; the
 *   memories the pipeline derived, and history, are not imported: the pipeline derives them again
 *   from the imported log.
 */
export interface ImportPlan {
  format: "events" | "export";
  sessions: ImportedSession[];
  memories: ImportedMemory[];
  /** Lines that were read but hold nothing to import (derived memories, history). */
  skipped: number;
}

export interface ImportedSession {
  /** The id the file knows it by: the caller's `session`, or the exported session's id. */
  key: string;
  user_id: string;
  app_id: string;
  agent_id?: string;
  metadata: Record<string, unknown>;
  started_at?: string;
  /** Whether to end it after its events (the events format: always; an export: when it was ended). */
  end: boolean;
  events: ImportedEvent[];
}

export interface ImportedEvent {
  /** The file's line, for errors. */
  line: number;
  /** The seq the export gave it: an imported session holds its events at the same seqs. */
  exportedSeq?: number;
  type: string;
  role: string;
  content: string;
  data?: Record<string, unknown>;
  occurred_at?: string;
  /** The events format makes one of each line (`<session>:<line>`), so a re-run stores nothing twice; an export's own, if any. */
  idempotency_key?: string;
}

export interface ImportedMemory {
  line: number;
  user_id: string;
  app_id: string;
  body: Record<string, unknown>;
  /** The events it came from, as (exported session, seq). */
  sources: { session: string; seq: number }[];
}

const EventLineSchema = z.object({
  session: z.string().min(1),
  user_id: z.string().min(1),
  app_id: z.string().min(1).optional(),
  type: z.string().default("message"),
  role: z.enum(EVENT_ROLES),
  content: z.string(),
  occurred_at: z.string().optional(),
  idempotency_key: z.string().optional(),
});

/**
 * Reads an import file into what to write. Every problem is a `CommandError` of one line naming
 * the file, the line and what is wrong (`events.jsonl:3: user_id: …`).
 *
 * @example
 * const plan = await readImportFile("conversations.jsonl");
 */
export async function readImportFile(file: string): Promise<ImportPlan> {
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    throw new CommandError(`cannot read ${file}: ${error.code === "ENOENT" ? "no such file" : error.message} (${error.code ?? "error"})`);
  });
  // Named as the caller gave it, as the writer's errors name it.
  const name = file;
  const lines: { number: number; value: unknown }[] = [];
  text.split("\n").forEach((raw, index) => {
    if (!raw.trim()) return;
    try {
      lines.push({ number: index + 1, value: JSON.parse(raw) });
    } catch (error) {
      throw new CommandError(`${name}:${index + 1}: not JSON (${error instanceof Error ? error.message : String(error)})`);
    }
  });
  const first = lines[0]?.value;
  const exported = typeof first === "object" && first !== null && "kind" in first;
  return exported ? readExport(name, lines) : readEvents(name, lines);
}

function readEvents(name: string, lines: { number: number; value: unknown }[]): ImportPlan {
  const sessions = new Map<string, ImportedSession>();
  for (const { number, value } of lines) {
    const parsed = EventLineSchema.safeParse(value);
    if (!parsed.success) {
      const hint = typeof value === "object" && value !== null && "kind" in value ? " (an export record, though line 1 is an event)" : "";
      throw new CommandError(`${name}:${number}: ${issuesLine(parsed.error, "(the line)")}${hint}`);
    }
    const line = parsed.data;
    let session = sessions.get(line.session);
    if (!session) {
      session = {
        key: line.session,
        user_id: line.user_id,
        app_id: line.app_id ?? "default",
        metadata: {},
        // A session starts when its first event happened.
        ...(line.occurred_at ? { started_at: line.occurred_at } : {}),
        end: true,
        events: [],
      };
      sessions.set(line.session, session);
    }
    session.events.push({
      line: number,
      type: line.type,
      role: line.role,
      content: line.content,
      ...(line.occurred_at ? { occurred_at: line.occurred_at } : {}),
      idempotency_key: line.idempotency_key ?? `${line.session}:${number}`,
    });
  }
  return { format: "events", sessions: [...sessions.values()], memories: [], skipped: 0 };
}

function readExport(name: string, lines: { number: number; value: unknown }[]): ImportPlan {
  const sessions = new Map<string, ImportedSession>();
  const memories: ImportedMemory[] = [];
  let skipped = 0;
  for (const { number, value } of lines) {
    // The export's own schema: import reads exactly what export writes.
    const parsed = ExportRecordSchema.safeParse(value);
    if (!parsed.success) {
      const kind = typeof value === "object" && value !== null && "kind" in value ? (value as { kind: unknown }).kind : undefined;
      const what = kind === undefined ? "not an export record (line 1 is one)" : `a "${String(kind)}" record`;
      throw new CommandError(`${name}:${number}: ${what}: ${issuesLine(parsed.error, "(the line)")}`);
    }
    const record = parsed.data;
    if (record.kind === "session") {
      const { imported_session: _, ...metadata } = record.metadata;
      sessions.set(record.id, {
        key: record.id,
        user_id: record.user_id,
        app_id: record.app_id,
        ...(record.agent_id ? { agent_id: record.agent_id } : {}),
        metadata,
        started_at: record.started_at,
        end: record.ended_at !== null,
        events: [],
      });
    } else if (record.kind === "event") {
      const session = sessions.get(record.session_id);
      if (!session)
        throw new CommandError(`${name}:${number}: an event of session ${record.session_id}, whose session record is not above it`);
      session.events.push({
        line: number,
        exportedSeq: record.seq,
        type: record.type,
        role: record.role,
        content: record.content,
        ...(record.data ? { data: record.data } : {}),
        occurred_at: record.occurred_at,
        ...(record.idempotency_key ? { idempotency_key: record.idempotency_key } : {}),
      });
    } else if (record.kind === "memory" && addedThroughApi(record)) {
      memories.push({
        line: number,
        user_id: record.user_id,
        app_id: record.app_id,
        body: {
          type: record.type,
          content: record.content,
          importance: record.importance,
          valid_at: record.valid_at,
          ...(record.type === "semantic"
            ? { subtype: record.subtype, key: record.key, value: record.value, confidence: record.confidence }
            : {}),
        },
        sources: (record.sources ?? []).map((source) => ({ session: source.session_id, seq: source.seq })),
      });
    } else skipped++;
  }
  return { format: "export", sessions: [...sessions.values()], memories, skipped };
}

/** A current fact or insight someone added through `POST /v1/memories`: the log cannot derive it again. */
function addedThroughApi(record: Extract<z.infer<typeof ExportRecordSchema>, { kind: "memory" }>): boolean {
  return (
    record.metadata["origin"] === "api" &&
    (record.type === "semantic" || record.type === "insight") &&
    record.expired_at === null &&
    record.invalid_at === null &&
    record.superseded_by === null
  );
}
