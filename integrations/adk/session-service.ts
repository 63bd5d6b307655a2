import {
  type AppendEventRequest,
  BaseSessionService,
  type CreateSessionRequest,
  createEvent,
  type DeleteSessionRequest,
  type Event,
  type GetSessionRequest,
  type ListSessionsRequest,
  type ListSessionsResponse,
  type Session,
} from "@google/adk";
import type { MemoryClient } from "../../client/index.js";
import { expectOk } from "../expect-ok.js";
import { adkSessionId, SessionDirectory, type StoredSession } from "./directory.js";
import { adkEventInput } from "./event-input.js";

/** ADK's state prefixes (`State.APP_PREFIX`, …): app- and user-wide keys, and keys never stored. */
const APP_PREFIX = "app:";
const USER_PREFIX = "user:";
const TEMP_PREFIX = "temp:";
const PAGE = 1000;

type StoredEvent = { seq: number; role: string; content: string; data: Record<string, unknown>; occurred_at: string };

/**
 * Google ADK's `BaseSessionService` over this service, so an ADK `Runner` keeps its sessions in the
 * event log: an ADK session is a session, every final event is appended to its log —
 * the text as the event's content (what the pipeline summarises and reflects on), the whole ADK
 * event in `data.adk` (`adkEventInput`) — and a state delta goes to the scoped state: `app:` keys to the app's scope, `user:` keys
 * to the user's, the rest to the session's; `temp:` keys are never stored. Events are appended
 * idempotently by ADK event id. A session cannot be deleted: the log is append-only (erase the
 * user, or redact events, through the REST API). Lookups by an ADK id of the caller's choosing, and
 * `listSessions`, read the user's 200 newest sessions.
 *
 * @example
 * const runner = new Runner({ appName: "travel", agent, sessionService: new MnemoSessionService(client), memoryService: new MnemoMemoryService(client) });
 */
export class MnemoSessionService extends BaseSessionService {
  private readonly directory: SessionDirectory;

  constructor(private readonly client: MemoryClient) {
    super();
    this.directory = new SessionDirectory(client);
  }

  async createSession(request: CreateSessionRequest): Promise<Session> {
    if (request.sessionId && (await this.directory.find({ ...request, sessionId: request.sessionId })))
      throw new Error(`session ${request.sessionId} already exists for user ${request.userId} in app ${request.appName}`);
    const stored = await this.directory.create(request);
    const state = Object.fromEntries(Object.entries(request.state ?? {}).filter(([key]) => !key.startsWith(TEMP_PREFIX)));
    if (Object.keys(state).length > 0) await this.patchState(stored.id, state);
    return (await this.getSession({ appName: request.appName, userId: request.userId, sessionId: adkSessionId(stored) })) as Session;
  }

  async getSession(request: GetSessionRequest): Promise<Session | undefined> {
    const stored = await this.directory.find(request);
    if (!stored) return undefined;
    let events = (await this.readEvents(stored.id)).map(toAdkEvent);
    const { numRecentEvents, afterTimestamp } = request.config ?? {};
    if (afterTimestamp) events = events.filter((event) => event.timestamp >= afterTimestamp);
    if (numRecentEvents) events = events.slice(-numRecentEvents);
    return toAdkSession(stored, events);
  }

  async listSessions(request: ListSessionsRequest): Promise<ListSessionsResponse> {
    if (!request.userId) throw new Error("MnemoSessionService lists one user's sessions: give userId");
    const response = await expectOk(
      this.client.v1.sessions.$get({ query: { user_id: request.userId, app_id: request.appName, limit: "200" } }),
    );
    const all = ((await response.json()) as { sessions: StoredSession[] }).sessions.map((stored) => toAdkSession(stored, []));
    if (request.order) {
      const direction = request.order === "asc" ? 1 : -1;
      all.sort((a, b) => direction * (a.lastUpdateTime - b.lastUpdateTime) || a.id.localeCompare(b.id));
    }
    const limit = request.limit ?? all.length;
    const offset = request.page !== undefined ? (request.page - 1) * limit : (request.offset ?? 0);
    return {
      sessions: all.slice(offset, offset + limit),
      page: limit === 0 ? 1 : Math.floor(offset / limit) + 1,
      limit,
      totalItems: all.length,
      totalPages: limit === 0 ? 0 : Math.ceil(all.length / limit),
    };
  }

  async deleteSession(request: DeleteSessionRequest): Promise<void> {
    throw new Error(
      `session ${request.sessionId} cannot be deleted: the event log is append-only; erase the user (DELETE /v1/users/:id) or redact events`,
    );
  }

  override async appendEvent(request: AppendEventRequest): Promise<Event> {
    const { session, event } = request;
    if (event.partial) return event;
    const appended = await super.appendEvent(request);
    const stored = await this.directory.resolve(session);
    await expectOk(this.client.v1.sessions[":id"].events.$post({ param: { id: stored.id }, json: { events: [adkEventInput(appended)] } }));
    const delta = appended.actions?.stateDelta ?? {};
    if (Object.keys(delta).length > 0) await this.patchState(stored.id, delta);
    return appended;
  }

  /** Splits ADK's prefixed keys into the three scopes (a removed key is `null`, as the API removes it). */
  private async patchState(sessionId: string, delta: Record<string, unknown>): Promise<void> {
    const scopes: Record<"session" | "user" | "app", Record<string, unknown>> = { session: {}, user: {}, app: {} };
    for (const [key, value] of Object.entries(delta)) {
      if (key.startsWith(TEMP_PREFIX)) continue;
      if (key.startsWith(APP_PREFIX)) scopes.app[key.slice(APP_PREFIX.length)] = value ?? null;
      else if (key.startsWith(USER_PREFIX)) scopes.user[key.slice(USER_PREFIX.length)] = value ?? null;
      else scopes.session[key] = value ?? null;
    }
    const json = Object.fromEntries(Object.entries(scopes).filter(([, values]) => Object.keys(values).length > 0));
    if (Object.keys(json).length > 0) await expectOk(this.client.v1.sessions[":id"].state.$patch({ param: { id: sessionId }, json }));
  }

  private async readEvents(sessionId: string): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    for (;;) {
      const after = events.at(-1)?.seq ?? 0;
      const response = await expectOk(
        this.client.v1.sessions[":id"].events.$get({ param: { id: sessionId }, query: { after_seq: String(after), limit: String(PAGE) } }),
      );
      const page = ((await response.json()) as { events: StoredEvent[] }).events;
      events.push(...page);
      if (page.length < PAGE) return events;
    }
  }
}

/** The ADK event as appended; an event written without one (or redacted since) from its role and words. */
function toAdkEvent(stored: StoredEvent): Event {
  const adk = stored.data["adk"];
  if (adk && typeof adk === "object") return adk as Event;
  return createEvent({
    author: stored.role === "user" ? "user" : "assistant",
    content: { role: stored.role === "user" ? "user" : "model", parts: [{ text: stored.content }] },
    timestamp: Date.parse(stored.occurred_at),
  });
}

/**
 * ADK's merged view of state: the session's keys, then the app's and the user's under their
 * prefixes. A listed session carries no state (ADK lists sessions without it), so it has none here.
 */
function toAdkSession(stored: StoredSession, events: Event[]): Session {
  const scoped = stored.state ?? { session: {}, user: {}, app: {} };
  const state: Record<string, unknown> = { ...scoped.session };
  for (const [key, value] of Object.entries(scoped.app)) state[APP_PREFIX + key] = value;
  for (const [key, value] of Object.entries(scoped.user)) state[USER_PREFIX + key] = value;
  return {
    id: adkSessionId(stored),
    appName: stored.app_id,
    userId: stored.user_id,
    state,
    events,
    lastUpdateTime: Date.parse(stored.last_event_at ?? stored.created_at),
  };
}
