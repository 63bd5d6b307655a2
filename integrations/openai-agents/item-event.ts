import { type AgentInputItem, protocol } from "@openai/agents";
import { z } from "zod";

/** The event type an item is stored under; the item itself is in `data.openai_agents_item`. */
export const ITEM_EVENT_TYPE = "openai_agents_item";
const ITEM_FIELD = "openai_agents_item";

/** What the log answers for an event (the fields this adapter reads). */
export const LoggedEventSchema = z.object({
  seq: z.number().int(),
  role: z.enum(["user", "assistant", "system", "tool"]),
  content: z.string(),
  data: z.record(z.string(), z.unknown()).nullable(),
});
export type LoggedEvent = z.infer<typeof LoggedEventSchema>;

/**
 * One SDK item as one event of the log: a message's text is the event's content (what the pipeline
 * summarises and reflects on), with its role; function calls, their results, reasoning and other
 * items have no words for memory and are stored as `tool` events with empty content. The whole item
 * is kept in `data`, so `getItems` gives back exactly what was added. An item with an id (the
 * model's output) is appended idempotently by it, so a retried `addItems` stores it once.
 */
export function itemEvent(item: AgentInputItem) {
  const parsed = protocol.ModelItem.safeParse(item);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`not an OpenAI Agents item: ${issue?.path.join(".") || "(item)"}: ${issue?.message ?? "invalid"}`);
  }
  const message = isMessage(item) ? item : undefined;
  return {
    type: ITEM_EVENT_TYPE,
    role: message ? message.role : ("tool" as const),
    content: message ? messageText(message) : "",
    // A JSON copy: the SDK's items are plain data, and the log stores JSON.
    data: { [ITEM_FIELD]: JSON.parse(JSON.stringify(item)) as Record<string, unknown> },
    ...(typeof item.id === "string" && item.id ? { idempotency_key: `openai-agents:${item.id}` } : {}),
  };
}

/**
 * The item an event holds: the stored item, or — for an event another client appended through the
 * API — a message with the event's words. A redacted event (a tombstone) holds none; an event whose
 * stored item is not an item is refused loudly rather than handed to the model.
 */
export function eventItem(event: LoggedEvent): AgentInputItem | undefined {
  if (event.data && "tombstone" in event.data) return undefined;
  const stored = event.data?.[ITEM_FIELD];
  if (stored !== undefined) {
    const parsed = protocol.ModelItem.safeParse(stored);
    if (!parsed.success) throw new Error(`event ${event.seq} holds no valid OpenAI Agents item: ${parsed.error.issues[0]?.message}`);
    return stored as AgentInputItem;
  }
  if (!event.content) return undefined;
  if (event.role === "user") return { role: "user", content: event.content };
  if (event.role === "system") return { role: "system", content: event.content };
  if (event.role === "assistant") {
    return { role: "assistant", status: "completed", content: [{ type: "output_text", text: event.content }] };
  }
  return undefined;
}

type MessageInput = Extract<AgentInputItem, { role: "user" | "assistant" | "system" }>;

function isMessage(item: AgentInputItem): item is MessageInput {
  return (item.type === undefined || item.type === "message") && "role" in item;
}

function messageText(message: MessageInput): string {
  if (typeof message.content === "string") return message.content;
  return (message.content as { type: string; text?: string; refusal?: string; transcript?: string | null }[])
    .map((part) => part.text ?? part.refusal ?? part.transcript ?? "")
    .filter(Boolean)
    .join("\n")
    .trim();
}
