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
  /** Appends' sends still on their way, per session: a session's end goes after them. */
  const sending = new Map<string, Set<Promise<unknown>>>();
  const tracked = (sessionId: string, promise: Promise<unknown>): Promise<unknown> => {
    const inFlight = sending.get(sessionId) ?? new Set();
    sending.set(sessionId, inFlight);
    inFlight.add(promise);
    const done = () => {
      inFlight.delete(promise);
      if (inFlight.size === 0 && sending.get(sessionId) === inFlight) sending.delete(sessionId);
    };
    promise.then(done, done);
    return promise;
  };

  const flush = (sessionId: string) => {
    const window = windows.get(sessionId) as Window;
    if (!window.pending) {
      windows.delete(sessionId);
      return;
    }
    const { pending, waiters, failures } = window;
    windows.set(sessionId, { waiters: [], failures: [] });
    tracked(sessionId, send([sessionEventsAppended.create(pending)])).then(
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
        await tracked(progress.session_id, send([sessionEventsAppended.create(progress)]));
        return;
      }
      if (!window.pending || window.pending.last_seq < progress.last_seq) window.pending = progress;
      await new Promise<void>((resolve, reject) => {
        window.waiters.push(resolve);
        window.failures.push(reject);
      });
    },
    async sessionEnded(progress) {
      // The end announces the session up to its last event: an append still waiting to be announced
      // would only start a replay (after its debounce) with nothing left to do.
      // Its callers are answered by the end's send instead.
      const window = windows.get(progress.session_id);
      const folded = { waiters: [] as (() => void)[], failures: [] as ((error: unknown) => void)[] };
      if (window?.pending && window.pending.last_seq <= progress.last_seq) {
        delete window.pending;
        folded.waiters = window.waiters.splice(0);
        folded.failures = window.failures.splice(0);
      }
      // After the appends already on their way: an append announced after the end (by another
      // request's emit, still in flight) would start a replay the end's cancellation never sees.
      await Promise.allSettled([...(sending.get(progress.session_id) ?? [])]);
      try {
        await send([sessionEnded.create(progress)]);
      } catch (error) {
        for (const reject of folded.failures) reject(error);
        throw error;
      }
      for (const resolve of folded.waiters) resolve();
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
