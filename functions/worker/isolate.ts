import { serve as serveInngest } from "inngest/hono";
import { createPipelineClient } from "../../inngest/client.js";
import { createPipelineFunctions } from "../../inngest/index.js";
import { durationMs, parseEnv } from "../../src/config/env.js";
import { registerServerPool } from "../../src/db/pool-statements.js";
import { LiveEvents } from "../../src/live/live-events.js";
import { AccessRecorder } from "../../src/memory/lifecycle/access-recorder.js";
import { CorpusStatisticsCache } from "../../src/memory/recall/engines/sql-bm25/corpus-statistics.js";
import { QueryVectorCache } from "../../src/memory/recall/query-vector-cache.js";
import { createPipelineNotifier } from "../../src/pipeline/notifier.js";
import { jobsPipelineView } from "../../src/pipeline/status/jobs-view.js";
import { createProviders } from "../../src/providers/index.js";
import { createHashingEmbedder } from "../../src/providers/offline/hashing-embedder.js";
import { meterProviders } from "../../src/usage/metered-providers.js";
import { UsageRecorder } from "../../src/usage/usage-recorder.js";
import { clockFromEnv } from "../../src/util/clock-from-env.js";
import { createLogger, type Logger } from "../../src/util/logger.js";
import { type App, createApp } from "../app.js";
import type { AppDeps } from "../deps.js";
import { securityFromEnv } from "../security.js";
import { inngestConnection, pipelineSettings, scheduledDecay } from "../settings.js";
import { currentScope, scopedConnection, scopedDatabase } from "./request-scope.js";
import { type AssetFetcher, loadTokenizer } from "./tokenizer-asset.js";

/** Cloudflare bindings: Hyperdrive for Postgres (Neon behind it), the static assets, plain string vars and secrets. */
export interface Bindings {
  HYPERDRIVE?: { connectionString: string };
  ASSETS?: AssetFetcher;
  [name: string]: unknown;
}

/** Everything that lives as long as the isolate: the app with its Inngest handler, and where the database is. */
export interface Isolate {
  app: App;
  logger: Logger;
  connectionString: string;
}

/**
 * Builds the app once per isolate: configuration, providers, tokenizer, key cache and rate-limit
 * buckets, the Inngest client with its functions and serve handler, the live-event bus. The
 * database and the after-response work are the request's own (request-scope.ts).
 */
export async function startIsolate(bindings: Bindings): Promise<Isolate> {
  const strings = Object.fromEntries(Object.entries(bindings).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
  const connectionString = bindings.HYPERDRIVE?.connectionString ?? strings["DATABASE_URL"];
  if (!connectionString) throw new Error("no database: bind Hyperdrive as HYPERDRIVE (or set DATABASE_URL)");
  if (!bindings.ASSETS) throw new Error('no static assets: the Worker needs [assets] with binding = "ASSETS" (wrangler.toml)');
  const env = parseEnv({ ...strings, INNGEST_MODE: "cloud", DATABASE_URL: connectionString });
  if (!env.INNGEST_SIGNING_KEY)
    throw new Error("INNGEST_SIGNING_KEY is required on Workers: /api/inngest must verify Inngest's signatures");
  const logger = createLogger(env.LOG_LEVEL);
  // No named statements: whether a pooler in front (Hyperdrive) keeps them across requests is not ours to rely on.
  registerServerPool(scopedDatabase, scopedConnection, { prepared: false });
  const settings = pipelineSettings(env);
  const clock = clockFromEnv(env);
  const tokenizer = await loadTokenizer(bindings.ASSETS);
  const metered = meterProviders(await createProviders(env, createHashingEmbedder), {
    db: scopedDatabase,
    clock,
    llmProvider: env.LLM_PROVIDER,
    embeddingProvider: env.EMBEDDING_PROVIDER,
    countTokens: (text) => tokenizer.count(text),
  });
  const inngest = createPipelineClient(
    {
      mode: "cloud",
      ...inngestConnection(env, logger),
    },
    { db: scopedDatabase, clock, llm: metered.llm, embedder: metered.embedder, settings },
  );
  const deps: AppDeps = {
    db: scopedDatabase,
    dbKind: "pg",
    tokenizer,
    redaction: env.REDACT,
    dailyTokenBudget: env.DAILY_TOKEN_BUDGET,
    replayMaxEvents: env.REPLAY_MAX_EVENTS,
    reflectionMaxEvents: env.REFLECTION_MAX_EVENTS,
    followingTurns: env.CONTEXT_FOLLOWING_TURNS,
    neighbourWeight: env.CONTEXT_NEIGHBOUR_WEIGHT,
    // The statistics and query caches are kept per isolate, which serves many requests.
    recall: {
      minTextCoverage: env.RECALL_MIN_TEXT_COVERAGE,
      retentionLambda: scheduledDecay(settings).lambda,
      statistics: new CorpusStatisticsCache(),
      queryVectors: new QueryVectorCache({ capacity: env.QUERY_CACHE_SIZE, ttlMs: durationMs(env.QUERY_CACHE_TTL) }),
    },
    clock,
    embedder: metered.embedder,
    llm: metered.llm,
    notifier: createPipelineNotifier((events) => inngest.send(events), durationMs(env.EMIT_COALESCE_WINDOW)),
    pipeline: jobsPipelineView(scopedDatabase, metered.embedder.model),
    inngestHandler: serveInngest({ client: inngest, functions: createPipelineFunctions(inngest, settings) }),
    get background() {
      return currentScope().background;
    },
    // A batch is written through the connection of the request that opened it, which waits for it.
    usageRecorder: new UsageRecorder(scopedDatabase),
    // Flushed right after the response, while the request's connection is still open.
    accessRecorder: new AccessRecorder(scopedDatabase, clock, 0),
    maxBodyBytes: env.MAX_BODY_BYTES,
    // The key cache and rate-limit buckets outlive requests; key lookups use each request's connection.
    security: await securityFromEnv(env, false, "cf-connecting-ip"),
    decay: scheduledDecay(settings),
    // Live streams see the events of requests served by this isolate; pipeline progress is read from the database.
    live: { bus: new LiveEvents(), pollMs: durationMs(env.LIVE_POLL_INTERVAL) },
    log: logger.error,
  };
  return { app: createApp(deps), logger, connectionString };
}
