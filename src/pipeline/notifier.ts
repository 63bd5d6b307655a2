import { embeddingsRequested, reflectionRequested, sessionEnded, sessionEventsAppended } from "./events.js";

export interface SessionProgress {
  session_id: string;
  app_id: string;
  user_id: string;
  last_seq: number;
}

/** Tells the pipeline about committed work. Every method resolves once the event was sent. */
export interface PipelineNotifier {
  eventsAppended(progress: SessionProgress): Promise<void>;
  sessionEnded(progress: SessionProgress): Promise<void>;
  /** Asks for replay and reflection of whole sessions (a rebuild). */
  rederive(sessions: SessionProgress[]): Promise<void>;
  /** Asks for deep reflection of sessions now, for an outside reason (a webhook, an operator, a retry). */
  reflect(sessions: SessionProgress[], reason: "webhook" | "manual" | "retry"): Promise<void>;
  /** Asks for the embedding backfill of users' memories. */
  embed(users: { app_id: string; user_id: string }[]): Promise<void>;
  /** Drops what is still waiting to be announced for an erased user (nothing of theirs is left to process). */
  forgetUser(scope: { appId: string; userId: string }): void;
}

type Send = (events: { name: string; data: Record<string, unknown> }[]) => Promise<unknown>;

interface Window {
  pending?: SessionProgress;
  waiters: (() => void)[];
  failures: ((error: unknown) => void)[];
}

/**
 * Sends pipeline events, folding bursts of appends to one session into fewer events: the first
 * append after a quiet period is sent at once, later ones within `windowMs` become one trailing
 * event with the newest `last_seq`. Fast replay is debounced per session anyway, so nothing is
 * lost by folding, and a burst of a thousand appends costs a couple of sends instead of a thousand.
 *
 * @example
 * const notifier = createPipelineNotifier((events) => inngest.send(events), 200);
 * await notifier.eventsAppended({ session_id, app_id, user_id, last_seq: 12 });
 */
export function createPipelineNotifier(send: Send, windowMs: number): PipelineNotifier {
  const windows = new Map<string, Window>();

  const flush = (sessionId: string) => {
    const window = windows.get(sessionId) as Window;
    if (!window.pending) {
      windows.delete(sessionId);
      return;
    }
    const { pending, waiters, failures } = window;
    windows.set(sessionId, { waiters: [], failures: [] });
    send([sessionEventsAppended.create(pending)]).then(
      () => {
        for (const resolve of waiters) resolve();
      },
      (error: unknown) => {
        for (const reject of failures) reject(error);
      },
    );
    setTimeout(() => flush(sessionId), windowMs);
  };

  return {
    async eventsAppended(progress) {
      const window = windows.get(progress.session_id);
      if (!window || windowMs <= 0) {
        if (windowMs > 0) {
          windows.set(progress.session_id, { waiters: [], failures: [] });
          setTimeout(() => flush(progress.session_id), windowMs);
        }
        await send([sessionEventsAppended.create(progress)]);
        return;
      }
      if (!window.pending || window.pending.last_seq < progress.last_seq) window.pending = progress;
      await new Promise<void>((resolve, reject) => {
        window.waiters.push(resolve);
        window.failures.push(reject);
      });
    },
    async sessionEnded(progress) {
      await send([sessionEnded.create(progress)]);
    },
    async rederive(sessions) {
      if (sessions.length === 0) return;
      await send(
        sessions.flatMap((progress) => [
          sessionEventsAppended.create(progress),
          reflectionRequested.create({
            session_id: progress.session_id,
            app_id: progress.app_id,
            user_id: progress.user_id,
            reason: "rebuild",
          }),
        ]),
      );
    },
    async reflect(sessions, reason) {
      if (sessions.length === 0) return;
      await send(
        sessions.map((progress) =>
          reflectionRequested.create({ session_id: progress.session_id, app_id: progress.app_id, user_id: progress.user_id, reason }),
        ),
      );
    },
    forgetUser(scope) {
      for (const window of windows.values()) {
        if (window.pending?.app_id !== scope.appId || window.pending.user_id !== scope.userId) continue;
        delete window.pending;
        for (const resolve of window.waiters.splice(0)) resolve();
        window.failures.length = 0;
      }
    },
    async embed(users) {
      if (users.length === 0) return;
      await send(users.map((user) => embeddingsRequested.create(user)));
    },
  };
}
