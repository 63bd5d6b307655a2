import type { Context } from "hono";
import { Hono } from "hono";
import type { Env } from "../../src/config/env.js";
import type { DatabaseHandle } from "../../src/db/database.js";
import { LocalExecutor } from "../../src/executor/local-executor.js";
import { eventSubjectExists } from "../../src/pipeline/event-subject.js";
import { durationMs } from "../../src/util/duration.js";
import type { Logger } from "../../src/util/logger.js";

/** The in-process Inngest executor and the private app it drives the serve handler through. */
export interface EmbeddedExecutor {
  executor: LocalExecutor;
  /** Where the Inngest client sends events: the executor's in-process event API. */
  transport: { fetch: typeof fetch; baseUrl: string };
  /** The origin the serve handler is told it is reached at. */
  serveOrigin: string;
  /** Mounts the serve handler once the functions exist; the executor calls nothing before `start()`. */
  mount(handler: (c: Context) => Promise<Response>): void;
}

/**
 * `INNGEST_MODE=embedded`: a local executor over the service's own database that drives the
 * functions through the real serve handler. The handler runs unsigned (dev mode), so it is
 * reachable only in-process, never on the HTTP port.
 *
 * @example
 * const embedded = embeddedExecutor(env, database, logger);
 * const services = await pipelineServices(env, { ...platform, executor: embedded.transport });
 * embedded.mount(services.inngestHandler);
 * await embedded.executor.start();
 */
export function embeddedExecutor(env: Env, database: DatabaseHandle, logger: Logger): EmbeddedExecutor {
  const serveUrl = `http://localhost:${env.PORT}/api/inngest`;
  const inngestApp = new Hono();
  const executor = new LocalExecutor({
    db: database.db,
    invoke: async (url, init) => inngestApp.request(url, init),
    serveUrl,
    retryBaseMs: durationMs(env.EXECUTOR_RETRY_BASE),
    idleCheckMs: durationMs(env.EXECUTOR_POLL_INTERVAL),
    leaseMs: durationMs(env.EXECUTOR_LEASE),
    retentionMs: durationMs(env.EXECUTOR_RETENTION),
    // PGlite on disk is locked to this process, so its interrupted runs are ours to resume at once.
    exclusive: database.kind === "pglite",
    // An emit still on its way when its user was erased starts nothing.
    accepts: eventSubjectExists,
    log: logger.warn,
  });
  return {
    executor,
    transport: { fetch: executor.fetch, baseUrl: "http://embedded-executor.local" },
    serveOrigin: new URL(serveUrl).origin,
    mount(handler) {
      inngestApp.on(["GET", "PUT", "POST"], "/api/inngest", handler);
    },
  };
}
