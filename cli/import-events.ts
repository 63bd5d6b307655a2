import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { SingleBar } from "cli-progress";
import { z } from "zod";
import { requestJson, type Service } from "./service.js";

/** One JSONL line: an event and the conversation it belongs to (`session`, the caller's own id). */
const LineSchema = z.object({
  session: z.string().min(1),
  user_id: z.string().min(1),
  app_id: z.string().min(1).optional(),
  type: z.string().default("message"),
  role: z.string().optional(),
  content: z.string(),
  occurred_at: z.string().optional(),
  idempotency_key: z.string().optional(),
});

/**
 * Imports a JSONL file of events through the HTTP API (the same validation and append path as
 * any client; a running server's, or this process's), one session per distinct `session`, in order, with a progress bar on stderr.
 * Idempotency keys default to `<session>:<line>` and sessions are found again by their imported
 * id, so re-running an import stores nothing twice. A session starts when its first event
 * happened, and is ended after its events unless `open` (ending is what lets deep reflection
 * derive facts from a finished conversation).
 */
export async function importEvents(
  service: Pick<Service, "request">,
  file: string,
  options: { batch: number; progress: boolean; open?: boolean },
): Promise<{ events: number; stored: number; sessions: number; users: { appId: string; userId: string }[] }> {
  const lines: z.infer<typeof LineSchema>[] = [];
  let number = 0;
  for await (const raw of createInterface({ input: createReadStream(file) })) {
    number++;
    if (!raw.trim()) continue;
    const parsed = LineSchema.safeParse(JSON.parse(raw));
    if (!parsed.success)
      throw new Error(`${file}:${number}: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`);
    lines.push({ ...parsed.data, idempotency_key: parsed.data.idempotency_key ?? `${parsed.data.session}:${number}` });
  }
  const bar = new SingleBar({
    format: "importing [{bar}] {value}/{total} events | {sessions} sessions",
    stream: process.stderr,
    noTTYOutput: options.progress,
  });
  if (options.progress) bar.start(lines.length, 0, { sessions: 0 });
  const sessions = new Map<string, string>();
  let stored = 0;
  const request = (path: string, body: unknown) => requestJson(service, "POST", path, body);
  // A re-run finds the sessions an earlier import created, so its idempotency keys still match.
  const findImported = async (line: z.infer<typeof LineSchema>): Promise<string | undefined> => {
    const query = new URLSearchParams({ user_id: line.user_id, app_id: line.app_id ?? "default", limit: "200" });
    const listed = await requestJson<{ sessions: { id: string; metadata: Record<string, unknown> }[] }>(
      service,
      "GET",
      `/v1/sessions?${query}`,
    );
    const found = listed.sessions.find((session) => session.metadata["imported_session"] === line.session)?.id;
    if (found) sessions.set(line.session, found);
    return found;
  };
  for (let start = 0; start < lines.length; ) {
    const first = lines[start] as z.infer<typeof LineSchema>;
    let end = start;
    while (end < lines.length && end - start < options.batch && lines[end]?.session === first.session) end++;
    let sessionId = sessions.get(first.session) ?? (await findImported(first));
    if (!sessionId) {
      const created = await request("/v1/sessions", {
        user_id: first.user_id,
        ...(first.app_id ? { app_id: first.app_id } : {}),
        ...(first.occurred_at ? { started_at: first.occurred_at } : {}),
        metadata: { imported_session: first.session },
      });
      sessionId = created["id"] as string;
      sessions.set(first.session, sessionId);
    }
    const events = lines.slice(start, end).map(({ session: _session, user_id: _user, app_id: _app, ...event }) => event);
    const appended = await request(`/v1/sessions/${sessionId}/events`, { events });
    stored += Number(appended["stored"]);
    start = end;
    if (options.progress) bar.update(start, { sessions: sessions.size });
  }
  if (options.progress) bar.stop();
  // Ending an ended session is a no-op, so a re-run is harmless.
  if (!options.open) for (const sessionId of sessions.values()) await requestJson(service, "POST", `/v1/sessions/${sessionId}/end`, {});
  const users = [
    ...new Map(
      lines.map((line) => [`${line.app_id ?? "default"}\u0000${line.user_id}`, { appId: line.app_id ?? "default", userId: line.user_id }]),
    ).values(),
  ];
  return { events: lines.length, stored, sessions: sessions.size, users };
}
