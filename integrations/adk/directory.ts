import type { MemoryClient } from "../../client/index.js";
import { expectOk } from "../expect-ok.js";

export interface StoredSession {
  id: string;
  app_id: string;
  user_id: string;
  metadata: Record<string, unknown>;
  ended_at: string | null;
  last_event_at: string | null;
  created_at: string;
  state?: { session: Record<string, unknown>; user: Record<string, unknown>; app: Record<string, unknown> };
}

/** How many of a user's sessions a lookup by ADK id reads (the newest first). */
const LOOKUP_LIMIT = 200;

/**
 * Where an ADK session lives in this service. A session created here without an id of its own
 * has this service's id as its ADK id; one created with an ADK id keeps it in
 * `metadata.adk_session_id` and is found by it among the user's newest sessions.
 */
export class SessionDirectory {
  private readonly known = new Map<string, string>();

  constructor(private readonly client: MemoryClient) {}

  async find(key: { appName: string; userId: string; sessionId: string }): Promise<StoredSession | undefined> {
    const cached = this.known.get(this.cacheKey(key));
    if (cached) return this.read(cached, key);
    const response = await expectOk(
      this.client.v1.sessions.$get({ query: { user_id: key.userId, app_id: key.appName, limit: String(LOOKUP_LIMIT) } }),
    );
    const { sessions } = (await response.json()) as { sessions: StoredSession[] };
    const found = sessions.find((session) => adkSessionId(session) === key.sessionId);
    if (!found) return undefined;
    this.known.set(this.cacheKey(key), found.id);
    return this.read(found.id, key);
  }

  async create(request: { appName: string; userId: string; sessionId?: string }): Promise<StoredSession> {
    const response = await expectOk(
      this.client.v1.sessions.$post({
        json: {
          user_id: request.userId,
          app_id: request.appName,
          ...(request.sessionId ? { metadata: { adk_session_id: request.sessionId } } : {}),
        },
      }),
    );
    const created = (await response.json()) as StoredSession;
    this.known.set(this.cacheKey({ ...request, sessionId: adkSessionId(created) }), created.id);
    return created;
  }

  /** The stored session, created on first use for a session that came from another session service. */
  async resolve(session: { appName: string; userId: string; id: string }): Promise<StoredSession> {
    return (
      (await this.find({ appName: session.appName, userId: session.userId, sessionId: session.id })) ??
      this.create({ appName: session.appName, userId: session.userId, sessionId: session.id })
    );
  }

  private async read(id: string, key: { appName: string; userId: string }): Promise<StoredSession | undefined> {
    const response = await this.client.v1.sessions[":id"].$get({ param: { id } });
    if (response.status === 404) return undefined;
    const session = (await (await expectOk(Promise.resolve(response))).json()) as StoredSession;
    // Another app's or user's session under the same id is not this one.
    return session.app_id === key.appName && session.user_id === key.userId ? session : undefined;
  }

  private cacheKey(key: { appName: string; userId: string; sessionId: string }): string {
    return JSON.stringify([key.appName, key.userId, key.sessionId]);
  }
}

export const adkSessionId = (session: StoredSession): string =>
  typeof session.metadata["adk_session_id"] === "string" ? session.metadata["adk_session_id"] : session.id;
