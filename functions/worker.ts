import { drizzle } from "drizzle-orm/node-postgres";
import type { ExecutionContext } from "hono";
import { serve as serveInngest } from "inngest/hono";
import pg from "pg";
import { createPipelineClient, type PipelineSettings } from "../inngest/client.js";
import { createPipelineFunctions } from "../inngest/index.js";
import { durationMs, type Env, parseEnv } from "../src/config/env.js";
import { o200kTokenizer } from "../src/context/tokenizer.js";
import type { Database } from "../src/db/database.js";
import * as schema from "../src/db/schema/index.js";
import { LiveEvents } from "../src/live/live-events.js";
import { AccessRecorder } from "../src/memory/lifecycle/access-recorder.js";
import { createPipelineNotifier } from "../src/pipeline/notifier.js";
import { jobsPipelineView } from "../src/pipeline/status/jobs-view.js";
import { createProviders, type Providers } from "../src/providers/index.js";
import { createHashingEmbedder } from "../src/providers/offline/hashing-embedder.js";
import { clockFromEnv } from "../src/util/clock-from-env.js";
import { createLogger, type Logger, toVariadicLogger } from "../src/util/logger.js";
import { createApp } from "./app.js";
import { BackgroundTasks } from "./background.js";
import { type Security, securityFromEnv } from "./security.js";
import { pipelineSettings } from "./settings.js";

/** Cloudflare bindings: Hyperdrive for Postgres (Neon behind it), plain string vars and secrets. */
interface Bindings {
  HYPERDRIVE?: { connectionString: string };
  [name: string]: unknown;
}

/** What lives as long as the isolate: configuration, logger, providers, key cache and rate-limit buckets. */
interface Isolate {
  env: Env;
  settings: PipelineSettings;
  logger: Logger;
  providers: Providers;
  security: Security;
  connectionString: string;
}

let isolate: Promise<Isolate> | undefined;
/** Live streams see the events of requests served by the same isolate (pipeline progress: all). */
const liveEvents = new LiveEvents();

/**
 * The Worker: the same Hono app as on Node, with Postgres over TCP through Hyperdrive (one
 * client per request — Workers cannot share sockets between requests; Hyperdrive pools them),
 * Inngest Cloud calling `/api/inngest` with signed requests, and `waitUntil` for pipeline emits.
 * Without a Gemini key the embedder is the lexical hashing embedder, reported at `/healthz`.
 */
export default {
  async fetch(request: Request, bindings: Bindings, ctx: ExecutionContext): Promise<Response> {
    isolate ??= startIsolate(bindings).catch((error: unknown) => {
      isolate = undefined;
      throw error;
    });
    const { env, settings, logger, providers, security, connectionString } = await isolate;
    const clock = clockFromEnv(env);
    const client = new pg.Client({ connectionString });
    await client.connect();
    const db = drizzle(client, { schema }) as unknown as Database;
    const background = new BackgroundTasks(logger.error);
    try {
      const inngest = createPipelineClient(
        {
          mode: "cloud",
          ...(env.INNGEST_BASE_URL ? { baseUrl: env.INNGEST_BASE_URL } : {}),
          ...(env.INNGEST_EVENT_KEY ? { eventKey: env.INNGEST_EVENT_KEY } : {}),
          ...(env.INNGEST_SIGNING_KEY ? { signingKey: env.INNGEST_SIGNING_KEY } : {}),
          ...(env.INNGEST_ENCRYPTION_KEY
            ? { encryption: { key: env.INNGEST_ENCRYPTION_KEY, fallbackKeys: env.INNGEST_ENCRYPTION_FALLBACK_KEYS } }
            : {}),
          logger: toVariadicLogger(logger),
        },
        { db, clock, llm: providers.llm, embedder: providers.embedder, settings },
      );
      const inngestHandler = serveInngest({ client: inngest, functions: createPipelineFunctions(inngest, settings) });
      const app = createApp({
        db,
        dbKind: "pg",
        tokenizer: o200kTokenizer,
        clock,
        embedder: providers.embedder,
        notifier: createPipelineNotifier((events) => inngest.send(events), durationMs(env.EMIT_COALESCE_WINDOW)),
        pipeline: jobsPipelineView(db, providers.embedder.model),
        inngestHandler,
        background,
        // Flushed right after the response, while this request's connection is still open.
        accessRecorder: new AccessRecorder(db, clock, 0),
        maxBodyBytes: env.MAX_BODY_BYTES,
        live: { bus: liveEvents, pollMs: durationMs(env.LIVE_POLL_INTERVAL) },
        security,
        log: logger.error,
      });
      return await app.fetch(request, bindings, ctx);
    } finally {
      ctx.waitUntil(background.settle().finally(() => client.end()));
    }
  },
};

async function startIsolate(bindings: Bindings): Promise<Isolate> {
  const strings = Object.fromEntries(Object.entries(bindings).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
  const connectionString = bindings.HYPERDRIVE?.connectionString ?? strings["DATABASE_URL"];
  if (!connectionString) throw new Error("no database: bind Hyperdrive as HYPERDRIVE (or set DATABASE_URL)");
  const env = parseEnv({ ...strings, INNGEST_MODE: "cloud", DATABASE_URL: connectionString });
  const providers = createProviders(env, createHashingEmbedder);
  if (!env.INNGEST_SIGNING_KEY)
    throw new Error("INNGEST_SIGNING_KEY is required on Workers: /api/inngest must verify Inngest's signatures");
  // The key cache and rate-limit buckets outlive requests; key lookups use each request's connection.
  return {
    env,
    settings: pipelineSettings(env),
    logger: createLogger(env.LOG_LEVEL),
    providers,
    security: await securityFromEnv(env, false, "cf-connecting-ip"),
    connectionString,
  };
}
