import type { BaseMemoryService, SearchMemoryRequest, SearchMemoryResponse, Session } from "@google/adk";
import type { MemoryClient } from "../../client/index.js";
import { expectOk } from "../expect-ok.js";
import { SessionDirectory } from "./directory.js";
import { adkEventInput } from "./event-input.js";

/** The append route takes at most this many events per request. */
const MAX_EVENTS_PER_APPEND = 500;

/**
 * Google ADK's `BaseMemoryService` over this service. `addSessionToMemory` appends the session's
 * events (idempotently by ADK event id, so a session kept by `MnemoSessionService`, whose events
 * are already in the log, adds nothing) and ends it, which starts deep reflection: facts, insights
 * and traits are derived in the background. `searchMemory` answers from hybrid recall through
 * `/v1/adk/search_memory`. ADK's `PreloadMemoryTool` and `LoadMemoryTool` use it as they use any
 * memory service.
 *
 * @example
 * const memory = new MnemoMemoryService(createMemoryClient(url, { apiKey }));
 * await memory.addSessionToMemory(session);
 * const { memories } = await memory.searchMemory({ appName, userId, query: "allergies" });
 */
export class MnemoMemoryService implements BaseMemoryService {
  private readonly directory: SessionDirectory;

  constructor(private readonly client: MemoryClient) {
    this.directory = new SessionDirectory(client);
  }

  async addSessionToMemory(session: Session): Promise<void> {
    const stored = await this.directory.resolve(session);
    // An ended session is in memory already (and accepts no more events).
    if (stored.ended_at) return;
    const events = session.events.filter((event) => !event.partial).map(adkEventInput);
    for (let start = 0; start < events.length; start += MAX_EVENTS_PER_APPEND) {
      const json = { events: events.slice(start, start + MAX_EVENTS_PER_APPEND) };
      await expectOk(this.client.v1.sessions[":id"].events.$post({ param: { id: stored.id }, json }));
    }
    await expectOk(this.client.v1.sessions[":id"].end.$post({ param: { id: stored.id } }));
  }

  async searchMemory(request: SearchMemoryRequest): Promise<SearchMemoryResponse> {
    const response = await expectOk(
      this.client.v1.adk.search_memory.$post({ json: { app_name: request.appName, user_id: request.userId, query: request.query } }),
    );
    return (await response.json()) as SearchMemoryResponse;
  }
}
