import { Hono } from "hono";
import { serve as serveInngest } from "inngest/hono";
import { createPipelineClient, type PipelineClient } from "../inngest/client.js";
import { createPipelineFunctions } from "../inngest/index.js";
import { durationMs, type Env } from "../src/config/env.js";
import { o200kTokenizer } from "../src/context/o200k-tokenizer.js";
import { connectDatabase } from "../src/db/connect.js";
import type { DatabaseHandle } from "../src/db/database.js";
import { scheduleVacuum } from "../src/db/embedded-vacuum.js";
import { migrateDatabase } from "../src/db/migrate.js";
import { LocalExecutor } from "../src/executor/local-executor.js";
import { LiveEvents } from "../src/live/live-events.js";
import { AccessRecorder } from "../src/memory/lifecycle/access-recorder.js";
import { type AnnService, startAnnService } from "../src/memory/recall/ann-service.js";
import { openChangeLog } from "../src/memory/recall/engines/resident/change-log.js";
import { ResidentMemories } from "../src/memory/recall/engines/resident/resident-memories.js";
import { CorpusStatisticsCache } from "../src/memory/recall/engines/sql-bm25/corpus-statistics.js";
import { QueryVectorCache } from "../src/memory/recall/query-vector-cache.js";
import { eventSubjectExists } from "../src/pipeline/event-subject.js";
import { createPipelineNotifier, type PipelineNotifier } from "../src/pipeline/notifier.js";
import { executorPipelineView } from "../src/pipeline/status/executor-view.js";
import { jobsPipelineView } from "../src/pipeline/status/jobs-view.js";
import { createProviders, type Providers } from "../src/providers/index.js";
import { createUseEmbedder } from "../src/providers/offline/use-embedder.js";
import { meterProviders } from "../src/usage/metered-providers.js";
import { UsageRecorder } from "../src/usage/usage-recorder.js";
import type { Clock } from "../src/util/clock.js";
import { clockFromEnv } from "../src/util/clock-from-env.js";
import { createLogger } from "../src/util/logger.js";
import { type App, createApp } from "./app.js";
import { BackgroundTasks } from "./background.js";
import { loadDashboard } from "./routes/dashboard.js";
import { isLoopback, securityFromEnv } from "./security.js";
import { inngestConnection, pipelineSettings, scheduledDecay } from "./settings.js";

export interface Runtime {
  app: App;
  database: DatabaseHandle;
  providers: Providers;
  /** Present in embedded mode: the in-process Inngest executor. */
  executor: LocalExecutor | undefined;
  background: BackgroundTasks;
  notifier: PipelineNotifier;
  /** The pipeline's Inngest client, for sending events such as a decay or backfill request. */
  inngest: PipelineClient;
  /** Embedded with ANN_INDEX=auto: the in-process copies of users' memories (vectors and words) that recall searches. */
  residentMemories: ResidentMemories | undefined;
  /** On a real Postgres with ANN_INDEX=auto: the HNSW indexes (the model's, and the largest users' own) and their upkeep. */
  ann: AnnService | undefined;
  close(): Promise<void>;
}

export interface RuntimeOverrides {
  providers?: Partial<Providers>;
  /** The memory's clock (a simulation moves it by hand); default from CLOCK_OFFSET or the system. */
  clock?: Clock;
  /** The database, already being opened (`functions/node.ts` opens it while the rest loads); default from env. */
  database?: Promise<DatabaseHandle>;
}

/**
 * Builds the whole service for Node from configuration: database (migrated when embedded),
 * providers, Inngest client and functions, the Hono app, and in embedded mode the local executor
 * that drives the functions through the real serve handler.
 *
 * @example
 * const runtime = await startRuntime(parseEnv(process.env));
 * const response = await runtime.app.request("/healthz");
 */
export async function startRuntime(env: Env, overrides: RuntimeOverrides = {}): Promise<Runtime> {
  const logger = createLogger(env.LOG_LEVEL);
  const log = logger.info;
  const database = await (overrides.database ?? connectDatabase(env, logger.warn));
  if (database.kind === "pglite") await migrateDatabase(database);
  const providers = { ...(await createProviders(env, createUseEmbedder)), ...overrides.providers };
  const residentMemories =
    database.kind === "pglite" && env.ANN_INDEX === "auto"
      ? new ResidentMemories({
          model: providers.embedder.model,
          dimensions: providers.embedder.dimensions,
          maxBytes: env.RESIDENT_MEMORIES_MAX_MB * 2 ** 20,
          log: logger.warn,
        })
      : undefined;
  if (database.kind === "pglite") await openChangeLog(database.db);
  const clock = overrides.clock ?? clockFromEnv(env);
  // Every call the pipeline and the routes make is metered (GET /v1/usage, DAILY_TOKEN_BUDGET).
  const metered = meterProviders(providers, {
    db: database.db,
    clock,
    llmProvider: env.LLM_PROVIDER,
    embeddingProvider: env.EMBEDDING_PROVIDER,
    countTokens: (text) => o200kTokenizer.count(text),
  });
  const settings = pipelineSettings(env);
  const embedded = env.INNGEST_MODE === "embedded";
  const serveUrl = `http://localhost:${env.PORT}/api/inngest`;

  // In embedded mode the serve handler is reachable only in-process: it runs unsigned (dev mode),
  // so it must not be exposed on the HTTP port.
  const inngestApp = new Hono();
  const executor = embedded
    ? new LocalExecutor({
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
      })
    : undefined;
  const inngest = createPipelineClient(
    {
      mode: env.INNGEST_MODE,
      ...(executor ? { fetch: executor.fetch, baseUrl: "http://embedded-executor.local" } : {}),
      ...inngestConnection(env, logger),
    },
    { db: database.db, clock, llm: metered.llm, embedder: metered.embedder, settings },
  );
  const functions = createPipelineFunctions(inngest, settings);
  const inngestHandler = serveInngest({ client: inngest, functions, serveOrigin: new URL(serveUrl).origin });
  inngestApp.on(["GET", "PUT", "POST"], "/api/inngest", inngestHandler);
  const background = new BackgroundTasks(logger.error);
  const liveEvents = new LiveEvents();
  const notifier = createPipelineNotifier((events) => inngest.send(events), durationMs(env.EMIT_COALESCE_WINDOW));
  const ann =
    database.kind !== "pglite" && env.ANN_INDEX === "auto"
      ? await startAnnService(database.db, { model: providers.embedder.model, dimensions: providers.embedder.dimensions }, logger.info, {
          // A connection of its own per build, so the build's memory setting is the build's.
          connect: () => connectDatabase({ ...env, DATABASE_POOL_MAX: 1 }, logger.warn),
          memory: env.ANN_INDEX_BUILD_MEMORY,
          users: {
            minMemories: env.ANN_USER_INDEX_MIN_MEMORIES,
            maxIndexes: env.ANN_USER_INDEX_MAX,
            intervalMs: durationMs(env.ANN_USER_INDEX_INTERVAL),
          },
        })
      : undefined;
  const app = createApp({
    db: database.db,
    dbKind: database.kind,
    tokenizer: o200kTokenizer,
    redaction: env.REDACT,
    dailyTokenBudget: env.DAILY_TOKEN_BUDGET,
    replayMaxEvents: env.REPLAY_MAX_EVENTS,
    reflectionMaxEvents: env.REFLECTION_MAX_EVENTS,
    followingTurns: env.CONTEXT_FOLLOWING_TURNS,
    neighbourWeight: env.CONTEXT_NEIGHBOUR_WEIGHT,
    recall: {
      minTextCoverage: env.RECALL_MIN_TEXT_COVERAGE,
      retentionLambda: scheduledDecay(settings).lambda,
      statistics: new CorpusStatisticsCache(),
      queryVectors: new QueryVectorCache({ capacity: env.QUERY_CACHE_SIZE, ttlMs: durationMs(env.QUERY_CACHE_TTL) }),
      ...(residentMemories ? { resident: residentMemories } : {}),
    },
    clock,
    embedder: metered.embedder,
    llm: metered.llm,
    ...(ann ? { ann } : {}),
    notifier,
    pipeline: executor
      ? executorPipelineView(database.db, providers.embedder.model)
      : jobsPipelineView(database.db, providers.embedder.model),
    ...(embedded ? {} : { inngestHandler }),
    background,
    usageRecorder: new UsageRecorder(database.db),
    accessRecorder: new AccessRecorder(database.db, clock, durationMs(env.ACCESS_FLUSH_INTERVAL)),
    maxBodyBytes: env.MAX_BODY_BYTES,
    dashboard: await loadDashboard(),
    decay: scheduledDecay(settings),
    live: { bus: liveEvents, pollMs: durationMs(env.LIVE_POLL_INTERVAL) },
    security: await securityFromEnv(env, isLoopback(env.HOST), "socket"),
    log: logger.error,
  });
  if (executor && env.EXECUTOR_ENABLED) await executor.start();
  const vacuum =
    database.kind === "pglite" ? scheduleVacuum(database.db, { intervalMs: durationMs(env.EMBEDDED_VACUUM_INTERVAL), logger }) : undefined;
  log("service ready", { database: database.kind, inngest: env.INNGEST_MODE, llm: providers.llm.id, embedder: providers.embedder.model });

  return {
    app,
    database,
    providers,
    executor,
    background,
    notifier,
    inngest,
    residentMemories,
    ann,
    async close() {
      await ann?.stop();
      await background.settle();
      await executor?.stop();
      await vacuum?.stop();
      await database.close();
    },
  };
}
