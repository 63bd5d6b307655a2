import type { MemoryClient } from "../client/index.js";

/** The parts of Google ADK's session and memory types this adapter reads and returns. */
export interface AdkSession {
  id: string;
  appName: string;
  userId: string;
  events: { author: string; content?: { parts?: { text?: string }[] }; timestamp?: number }[];
}
export interface AdkMemoryEntry {
  content: { parts: { text: string }[] };
  author?: string;
  timestamp?: string;
}

/**
 * ADK's `BaseMemoryService` over this service: `addSessionToMemory` appends a finished ADK
 * session's events (idempotently, keyed by session and position) and ends it, which starts
 * consolidation; `searchMemory` answers from `/v1/adk/search_memory`.
 *
 * @example
 * const memory = new MnemoMemoryService(createMemoryClient(url, { apiKey }));
 * await memory.addSessionToMemory(session);
 * const { memories } = await memory.searchMemory({ appName, userId, query: "allergies" });
 */
export class MnemoMemoryService {
  private readonly sessions = new Map<string, string>();

  constructor(private readonly client: MemoryClient) {}

  async addSessionToMemory(session: AdkSession): Promise<void> {
    const id = await this.sessionFor(session);
    const events = session.events.flatMap((event, index) => {
      const text = (event.content?.parts ?? [])
        .map((part) => part.text ?? "")
        .join("")
        .trim();
      if (!text) return [];
      return [
        {
          type: "message",
          role: event.author === "user" ? ("user" as const) : ("assistant" as const),
          content: text,
          idempotency_key: `adk:${session.id}:${index}`,
          ...(event.timestamp ? { occurred_at: new Date(event.timestamp * 1000).toISOString() } : {}),
        },
      ];
    });
    if (events.length > 0) await expectOk(this.client.v1.sessions[":id"].events.$post({ param: { id }, json: { events } }));
    await expectOk(this.client.v1.sessions[":id"].end.$post({ param: { id } }));
  }

  async searchMemory(request: { appName: string; userId: string; query: string }): Promise<{ memories: AdkMemoryEntry[] }> {
    const response = await expectOk(
      this.client.v1.adk.search_memory.$post({ json: { app_name: request.appName, user_id: request.userId, query: request.query } }),
    );
    return (await response.json()) as { memories: AdkMemoryEntry[] };
  }

  private async sessionFor(session: AdkSession): Promise<string> {
    const known = this.sessions.get(session.id);
    if (known) return known;
    const created = await expectOk(
      this.client.v1.sessions.$post({
        json: { user_id: session.userId, app_id: session.appName, metadata: { adk_session_id: session.id } },
      }),
    );
    const { id } = (await created.json()) as { id: string };
    this.sessions.set(session.id, id);
    return id;
  }
}

async function expectOk<T extends Response>(pending: Promise<T>): Promise<T> {
  const response = await pending;
  if (!response.ok) throw new Error(`memory service answered ${response.status}: ${await response.clone().text()}`);
  return response;
}
