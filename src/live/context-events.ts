import type { ContextRequest, ContextWindow } from "../context/schemas.js";
import type { LiveEvents } from "./live-events.js";

/**
 * What a context request tells a live stream: which memories it used, from which events, and
 * how the token budget was spent per section — so "why did the agent remember that?" has an
 * answer while it happens.
 */
export function publishContext(bus: LiveEvents, request: ContextRequest, window: ContextWindow): void {
  if (bus.subscribers === 0) return;
  const scope = { appId: request.app_id, userId: request.user_id, ...(request.session_id ? { sessionId: request.session_id } : {}) };
  const timestamp = Date.now();
  const hits = window.sections.flatMap((section) =>
    section.items
      .filter((item) => item.memory_id)
      .map((item) => ({ memory_id: item.memory_id, section: section.kind, tokens: item.tokens, text: item.text, sources: item.sources })),
  );
  bus.publish(scope, { type: "CUSTOM", name: "memory_hits", value: { query: request.query, hits }, timestamp });
  bus.publish(scope, {
    type: "STATE_DELTA",
    delta: [
      {
        op: "replace",
        path: "/context_budget",
        value: {
          max_tokens: window.max_tokens,
          budget: window.budget,
          total_tokens: window.total_tokens,
          sections: Object.fromEntries(window.sections.map((section) => [section.kind, section.tokens])),
        },
      },
    ],
    timestamp,
  });
}
