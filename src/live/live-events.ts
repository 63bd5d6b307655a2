/**
 * AG-UI style events (https://docs.ag-ui.com/concepts/events) about one user's memory:
 * consolidation progress as activity snapshots, context budget use as state deltas (JSON Patch),
 * memory hits and decay as custom events.
 */
export type LiveEvent =
  | { type: "ACTIVITY_SNAPSHOT"; messageId: string; activityType: "consolidation"; content: Record<string, unknown>; timestamp: number }
  | { type: "STATE_DELTA"; delta: { op: "replace" | "add"; path: string; value: unknown }[]; timestamp: number }
  | { type: "CUSTOM"; name: "subscribed" | "memory_hits" | "decay"; value: Record<string, unknown>; timestamp: number };

export interface LiveScope {
  appId: string;
  userId: string;
  /** A subscriber with a session sees that session's events and the user's session-less ones. */
  sessionId?: string;
}

type Listener = { scope: LiveScope; send: (event: LiveEvent) => void };

/**
 * In-process publish/subscribe for events that requests produce (context hits, budget use).
 * Pipeline progress does not come through here: the stream reads it from the jobs table, so it
 * works whichever process runs the pipeline.
 */
export class LiveEvents {
  private readonly listeners = new Set<Listener>();

  publish(scope: LiveScope, event: LiveEvent): void {
    for (const listener of this.listeners) {
      if (listener.scope.appId !== scope.appId || listener.scope.userId !== scope.userId) continue;
      if (listener.scope.sessionId && scope.sessionId && listener.scope.sessionId !== scope.sessionId) continue;
      listener.send(event);
    }
  }

  subscribe(scope: LiveScope, send: (event: LiveEvent) => void): () => void {
    const listener = { scope, send };
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get subscribers(): number {
    return this.listeners.size;
  }
}
