import { SingleBar } from "cli-progress";
import type { ImportedSession, ImportPlan } from "./import-file.js";
import { CommandError, requestJson, type Service } from "./service.js";

export interface ImportResult {
  events: number;
  stored: number;
  sessions: number;
  /** Memories added through the API in the exported store, added again. */
  memories: number;
  /** Records read and left to the pipeline (derived memories, history). */
  skipped: number;
  users: { appId: string; userId: string }[];
}

/**
 * Imports what a JSONL file holds (`readImportFile`: events a line, or what `mnemo export`
 * writes; read whole before anything is written) through the HTTP API — the same validation and append path as any client, a
 * running server's or this process's — with a progress bar on stderr. Sessions are found again by
 * the id the file knows them by (`metadata.imported_session`); events of the events format carry
 * idempotency keys, and an exported session's events keep their seqs (a re-run sends those past
 * what is stored), so re-running an import stores nothing twice. A session starts when the file says (its first event,
 * or the exported `started_at`) and is ended after its events unless `open`, or, from an export,
 * unless it was open there (ending is what lets deep reflection derive facts). A failure names the
 * file's line, in one line (`CommandError`).
 *
 * @example
 * const plan = await readImportFile("export.jsonl");
 * const result = await importEvents(service, { file: "export.jsonl", plan }, { batch: 100, progress: false });
 */
export async function importEvents(
  service: Pick<Service, "request">,
  { file, plan }: { file: string; plan: ImportPlan },
  options: { batch: number; progress: boolean; open?: boolean },
): Promise<ImportResult> {
  const total = plan.sessions.reduce((sum, session) => sum + session.events.length, 0);
  const bar = new SingleBar({
    format: "importing [{bar}] {value}/{total} events | {sessions} sessions",
    stream: process.stderr,
    noTTYOutput: options.progress,
  });
  if (options.progress) bar.start(total, 0, { sessions: 0 });
  const at = (line: number) => `${file}:${line}`;
  /** The importing store's session of each session of the file. */
  const sessionIds = new Map<string, string>();
  let stored = 0;
  let done = 0;
  for (const session of plan.sessions) {
    const { id: sessionId, lastSeq } = await sessionFor(service, session, at(session.events[0]?.line ?? 0));
    sessionIds.set(session.key, sessionId);
    // An exported session is imported into a session of its own, seq for seq: what an earlier run
    // stored is its prefix (each append is one transaction), so a re-run sends only the rest.
    // Events of the events format carry idempotency keys instead.
    const owed = session.events.filter((event) => event.exportedSeq === undefined || event.exportedSeq > lastSeq);
    done += session.events.length - owed.length;
    for (let start = 0; start < owed.length; start += options.batch) {
      const batch = owed.slice(start, start + options.batch);
      const events = batch.map(({ line: _, exportedSeq: __, ...event }) => event);
      const appended = await withLine(at(batch[0]?.line ?? 0), () =>
        requestJson<{ stored: number }>(service, "POST", `/v1/sessions/${sessionId}/events`, { events }),
      );
      stored += appended.stored;
      done += batch.length;
      if (options.progress) bar.update(done, { sessions: sessionIds.size });
    }
    // Ending an ended session is a no-op, so a re-run is harmless.
    if (session.end && !options.open) await requestJson(service, "POST", `/v1/sessions/${sessionId}/end`, {});
  }
  if (options.progress) bar.stop();
  const eventIds = new EventIds(service);
  for (const memory of plan.memories) {
    const sources: string[] = [];
    for (const source of memory.sources) {
      const sessionId = sessionIds.get(source.session);
      const id = sessionId ? await eventIds.of(sessionId, source.seq) : undefined;
      if (id) sources.push(id);
    }
    // Consolidation finds a memory already added (a re-run) and answers NOOP.
    await withLine(at(memory.line), () =>
      requestJson(service, "POST", "/v1/memories", {
        user_id: memory.user_id,
        app_id: memory.app_id,
        ...memory.body,
        source_event_ids: sources,
      }),
    );
  }
  return {
    events: total,
    stored,
    sessions: sessionIds.size,
    memories: plan.memories.length,
    skipped: plan.skipped,
    users: usersOf(plan),
  };
}

/** The session an earlier run of this import created (with the seq it has reached), or a new one. */
async function sessionFor(
  service: Pick<Service, "request">,
  session: ImportedSession,
  where: string,
): Promise<{ id: string; lastSeq: number }> {
  const query = new URLSearchParams({ user_id: session.user_id, app_id: session.app_id, limit: "200" });
  const listed = await withLine(where, () =>
    requestJson<{ sessions: { id: string; last_seq: number; metadata: Record<string, unknown> }[] }>(
      service,
      "GET",
      `/v1/sessions?${query}`,
    ),
  );
  const found = listed.sessions.find((candidate) => candidate.metadata["imported_session"] === session.key);
  if (found) return { id: found.id, lastSeq: found.last_seq };
  const created = await withLine(where, () =>
    requestJson<{ id: string }>(service, "POST", "/v1/sessions", {
      user_id: session.user_id,
      app_id: session.app_id,
      ...(session.agent_id ? { agent_id: session.agent_id } : {}),
      ...(session.started_at ? { started_at: session.started_at } : {}),
      metadata: { ...session.metadata, imported_session: session.key },
    }),
  );
  return { id: created.id, lastSeq: 0 };
}

/** The ids of an imported session's events by seq, read once per session (the sources of the memories added again). */
class EventIds {
  private readonly read = new Map<string, Promise<Map<number, string>>>();

  constructor(private readonly service: Pick<Service, "request">) {}

  async of(sessionId: string, seq: number): Promise<string | undefined> {
    let ids = this.read.get(sessionId);
    if (!ids) {
      ids = this.all(sessionId);
      this.read.set(sessionId, ids);
    }
    return (await ids).get(seq);
  }

  private async all(sessionId: string): Promise<Map<number, string>> {
    const ids = new Map<number, string>();
    for (let after: number | null = 0; after !== null; ) {
      const page: { events: { id: string; seq: number }[]; next_after_seq: number | null } = await requestJson(
        this.service,
        "GET",
        `/v1/sessions/${sessionId}/events?after_seq=${after}&limit=1000`,
      );
      for (const event of page.events) ids.set(event.seq, event.id);
      after = page.next_after_seq;
    }
    return ids;
  }
}

/** A refusal of the service, prefixed with the file's line it concerns. */
async function withLine<T>(where: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof CommandError) throw new CommandError(`${where}: ${error.message}`);
    throw error;
  }
}

function usersOf(plan: ImportPlan): { appId: string; userId: string }[] {
  const all = [...plan.sessions, ...plan.memories].map((owner) => ({ appId: owner.app_id, userId: owner.user_id }));
  return [...new Map(all.map((user) => [`${user.appId}\u0000${user.userId}`, user])).values()];
}
