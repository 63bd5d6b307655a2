import type { AgentInputItem, Session } from "@openai/agents";
import { z } from "zod";
import type { MemoryClient } from "../../client/index.js";
import { ExternalIdSchema } from "../../src/vocabulary/external-id.js";
import { expectOk, okJson } from "../expect-ok.js";
import { eventItem, itemEvent, LoggedEventSchema } from "./item-event.js";

/** The append route takes at most this many events per request; the read route answers pages of this many. */
const MAX_EVENTS_PER_APPEND = 500;
const PAGE = 1000;

export const MnemoSessionOptionsSchema = z.strictObject({
  /** The user whose conversation this is (and whose memory it feeds). */
  userId: ExternalIdSchema,
  /** The app (tenant); an app key fills in its own. */
  appId: ExternalIdSchema.optional(),
  /** A session of this service to continue; without it, one is created on first use. */
  sessionId: z.uuid().optional(),
  agentId: ExternalIdSchema.optional(),
  /** Stored with every session this creates. */
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type MnemoSessionOptions = z.input<typeof MnemoSessionOptionsSchema>;

const PageSchema = z.object({ events: z.array(LoggedEventSchema), next_after_seq: z.number().int().nullable() });

/** An item with the seq of the event that holds it. */
interface LoggedItem {
  seq: number;
  item: AgentInputItem;
}

/**
 * The OpenAI Agents SDK's `Session` over this service's event log, for `run(agent, input, { session })`:
 * a session here is a session of the service, and every item the runner adds is one event of its
 * append-only log (messages with their words, so the memory pipeline learns from them; tool calls,
 * results and reasoning as word-less `tool` events; the item itself in `data`).
 *
 * - `getItems(limit)` gives the items in log order — with `limit`, the last `limit` of them.
 * - `popItem()` takes the last item back by **redacting** its event (`POST …/events/:seq/redact`):
 *   the log keeps the seq as a tombstone, and every memory derived from the item is re-derived
 *   without it or retracted. It returns the item as it was.
 * - `clearSession()` **ends** the session (reflection derives the user's facts from it, as at any
 *   end) and the next use starts a new session for the same user: the conversation starts afresh,
 *   while what the user's memory learnt stays. To take words back, pop them; to forget a user,
 *   erase them (`DELETE /v1/users/:id`).
 *
 * @example
 * const session = new MnemoSession(createMemoryClient(url, { apiKey }), { userId: "ana" });
 * const result = await run(agent, "Where should we eat tonight?", { session, callModelInputFilter: memoryContextFilter(client, { userId: "ana", maxTokens: 1500 }) });
 */
export class MnemoSession implements Session {
  private readonly options: z.output<typeof MnemoSessionOptionsSchema>;
  private current: Promise<string> | undefined;
  /** The session named in the options, checked on first use. */
  private toContinue: string | undefined;

  constructor(
    private readonly client: MemoryClient,
    options: MnemoSessionOptions,
  ) {
    this.options = MnemoSessionOptionsSchema.parse(options);
    this.toContinue = this.options.sessionId;
  }

  /** The service's id of the session, created on first use (and anew after `clearSession`). */
  getSessionId(): Promise<string> {
    if (!this.current && this.toContinue) {
      // Someone else's session stays refused: every later call fails the same way.
      this.current = this.owned(this.toContinue);
      this.toContinue = undefined;
    }
    if (!this.current) {
      const creating = this.create();
      this.current = creating;
      // A failed creation is tried again by the next caller, not remembered.
      creating.catch(() => {
        if (this.current === creating) this.current = undefined;
      });
    }
    return this.current;
  }

  /** A session to continue, once it is known to be this user's (and this app's, when one is named). */
  private async owned(id: string): Promise<string> {
    const session = await okJson(this.client.v1.sessions[":id"].$get({ param: { id } }));
    const { userId, appId } = this.options;
    if (session.user_id !== userId || (appId !== undefined && session.app_id !== appId)) {
      throw new Error(`session ${id} is not a session of user ${userId}${appId ? ` in app ${appId}` : ""}`);
    }
    return id;
  }

  async getItems(limit?: number): Promise<AgentInputItem[]> {
    const checked = z.number().int().min(0).optional().parse(limit);
    if (checked === 0) return [];
    return (await this.tail(await this.getSessionId(), checked)).map((logged) => logged.item);
  }

  async addItems(items: AgentInputItem[]): Promise<void> {
    if (items.length === 0) return;
    const events = items.map(itemEvent);
    const id = await this.getSessionId();
    for (let start = 0; start < events.length; start += MAX_EVENTS_PER_APPEND) {
      const json = { events: events.slice(start, start + MAX_EVENTS_PER_APPEND) };
      await expectOk(this.client.v1.sessions[":id"].events.$post({ param: { id }, json }));
    }
  }

  async popItem(): Promise<AgentInputItem | undefined> {
    const id = await this.getSessionId();
    for (;;) {
      const [last] = await this.tail(id, 1);
      if (!last) return undefined;
      const { redaction } = await okJson(
        this.client.v1.sessions[":id"].events[":seq"].redact.$post({
          param: { id, seq: String(last.seq) },
          json: { reason: "popItem (OpenAI Agents session)" },
        }),
      );
      // Redacted by a concurrent pop first: that one returns this item; this one takes the one before.
      if (redaction.redacted_now) return last.item;
    }
  }

  async clearSession(): Promise<void> {
    if (this.toContinue) await this.getSessionId();
    const pending = this.current;
    if (!pending) return;
    this.current = undefined;
    const id = await pending;
    await expectOk(this.client.v1.sessions[":id"].end.$post({ param: { id } }));
  }

  private async create(): Promise<string> {
    const { userId, appId, agentId, metadata } = this.options;
    const created = await okJson(
      this.client.v1.sessions.$post({
        json: {
          user_id: userId,
          ...(appId ? { app_id: appId } : {}),
          ...(agentId ? { agent_id: agentId } : {}),
          metadata: { source: "openai-agents", ...metadata },
        },
      }),
    );
    return created.id;
  }

  /**
   * The session's items, or its last `limit` ones: read from `limit` events before the end, and
   * further back while tombstones and word-less foreign events leave fewer than `limit` items.
   */
  private async tail(id: string, limit: number | undefined): Promise<LoggedItem[]> {
    const end = (await okJson(this.client.v1.sessions[":id"].$get({ param: { id } }))).last_seq;
    if (limit === undefined) return this.itemsBetween(id, 0, end);
    let from = Math.max(0, end - limit);
    let items = await this.itemsBetween(id, from, end);
    while (items.length < limit && from > 0) {
      const to = from;
      from = Math.max(0, from - (limit - items.length));
      items = [...(await this.itemsBetween(id, from, to)), ...items];
    }
    return items.slice(-limit);
  }

  /** The items of the events after seq `after` up to seq `to`, in log order. */
  private async itemsBetween(id: string, after: number, to: number): Promise<LoggedItem[]> {
    const items: LoggedItem[] = [];
    let cursor = after;
    while (cursor < to) {
      const page = PageSchema.parse(
        await okJson(
          this.client.v1.sessions[":id"].events.$get({
            param: { id },
            query: { after_seq: String(cursor), limit: String(Math.min(PAGE, to - cursor)) },
          }),
        ),
      );
      for (const event of page.events) {
        if (event.seq > to) break;
        const item = eventItem(event);
        if (item) items.push({ seq: event.seq, item });
      }
      const last = page.events.at(-1)?.seq;
      if (last === undefined || page.next_after_seq === null) break;
      cursor = last;
    }
    return items;
  }
}
