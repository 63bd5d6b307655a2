import type { Event } from "@google/adk";

/**
 * An ADK event as this service's log stores it: the text as the content (what the pipeline
 * summarises and reflects on), the whole event in `data.adk`, keyed by the ADK event id — so the
 * session service and the memory service append byte-identical events and a second append of one
 * stores nothing. Function calls and responses have no text and so never become memory.
 */
export function adkEventInput(event: Event) {
  const text = (event.content?.parts ?? [])
    .map((part) => part.text ?? "")
    .join("")
    .trim();
  return {
    type: "adk_event",
    role: event.author === "user" ? ("user" as const) : text ? ("assistant" as const) : ("tool" as const),
    content: text,
    data: { adk: JSON.parse(JSON.stringify(event)) as Record<string, unknown> },
    occurred_at: new Date(event.timestamp).toISOString(),
    idempotency_key: `adk:${event.id}`,
  };
}
