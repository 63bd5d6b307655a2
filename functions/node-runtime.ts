import type { PipelineClient } from "../inngest/client.js";
import type { Env } from "../src/config/env.js";
import { o200kTokenizer } from "../src/context/o200k-tokenizer.js";
import { connectDatabase } from "../src/db/connect.js";
import type { DatabaseHandle } from "../src/db/database.js";
import { registerXidAgeGauge, scheduleFreeze } from "../src/db/embedded-freeze.js";
import { scheduleVacuum } from "../src/db/embedded-vacuum.js";
import { ErasureScrub, scrubRelations } from "../src/db/erasure-scrub.js";
import { migrateDatabase } from "../src/db/migrate.js";
import { migrationState } from "../src/db/migration-state.js";
import { assertReachable, whereTo } from "../src/db/reachability.js";
import { StartupError } from "../src/errors.js";
import type { LocalExecutor } from "../src/executor/local-executor.js";
import type { AnnService } from "../src/memory/recall/ann-service.js";
import type { ResidentMemories } from "../src/memory/recall/engines/resident/resident-memories.js";
import type { PipelineNotifier } from "../src/pipeline/notifier.js";
import { registerPipelineGauges } from "../src/pipeline/status/pipeline-gauges.js";
import { registerEmbedderGauges } from "../src/providers/embedder-gauges.js";
import type { Providers } from "../src/providers/index.js";
import { createThreadedLanguageModel } from "../src/providers/offline/threaded-language-model.js";
import { createUseEmbedder } from "../src/providers/offline/use-embedder.js";
import { startDecayCounter } from "../src/telemetry/metrics.js";
import { ERASED_RELATIONS } from "../src/users/erase-user.js";
import type { Clock } from "../src/util/clock.js";
import { durationMs } from "../src/util/duration.js";
import { createLogger, type Logger } from "../src/util/logger.js";
import { type App, createApp } from "./app.js";
import { BackgroundTasks } from "./background.js";
import { appDepsFromEnv } from "./composition/app-deps-from-env.js";
import { type EmbeddedExecutor, embeddedExecutor } from "./composition/embedded-executor.js";
import { pipelineServices } from "./composition/pipeline-services.js";
import { startRecallEngines } from "./composition/recall-engines.js";
import type { Readiness } from "./readiness.js";
import { loadDashboard } from "./routes/dashboard.js";
import { isLoopback } from "./security.js";
import { databaseOptions } from "./settings.js";

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
  /**
   * Turns readiness to 503 and ends live streams (shutdown has begun); the embedded executor stops
   * claiming runs, and each run in flight hands itself back to the queue after its current step.
   * Resolves once no run is in flight. The service keeps answering what it is sent.
   */
  beginDrain(): Promise<void>;
  /** After the drain: waits for work begun after responses, stops the upkeep, closes the database. */
  close(): Promise<void>;
}

export interface RuntimeOverrides {
  providers?: Partial<Providers>;
  /** The memory's clock (a simulation moves it by hand); default from CLOCK_OFFSET or the system. */
  clock?: Clock;
  /**
   * Replay and reflection stamp what they derive at the end of its session instead of the clock's
   * reading: a simulation posts a lived history at once, each session at its date, and digests it after.
   */
  deriveAtSessionEnd?: boolean;
  /** The database, already being opened (`functions/node.ts` opens it while the rest loads); default from env. */
  database?: Promise<DatabaseHandle>;
  /** The metrics the registered OpenTelemetry SDK collects, served at /metrics (`startNodeTelemetry`). */
  metrics?: { text(): Promise<string> };
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
  const database = await openDatabase(env, logger, overrides.database);
  const embedded = env.INNGEST_MODE === "embedded" ? embeddedExecutor(env, database, logger) : undefined;
  const services = await pipelineServices(env, {
    db: database.db,
    tokenizer: o200kTokenizer,
    offline: { embedder: createUseEmbedder, languageModel: () => createThreadedLanguageModel() },
    logger,
    ...(embedded ? { executor: embedded.transport, serveOrigin: embedded.serveOrigin } : {}),
    ...(overrides.providers ? { providers: overrides.providers } : {}),
    ...(overrides.clock ? { clock: overrides.clock } : {}),
    ...(overrides.deriveAtSessionEnd ? { deriveAtSessionEnd: true } : {}),
  });
  embedded?.mount(services.inngestHandler);
  const recall = await startRecallEngines(env, database, services.providers.embedder, logger);
  const background = new BackgroundTasks(logger.error);
  const erasureScrub = new ErasureScrub(
    async () => {
      const pass = await scrubRelations(database.db, database.kind, ERASED_RELATIONS, {
        rewriteMaxBytes: env.ERASURE_REWRITE_MAX_MB * 1024 * 1024,
      });
      // One line per pass, however many erasures shared it.
      logger.info("erased rows scrubbed from the database files", { ...pass });
      return pass;
    },
    { minIntervalMs: durationMs(env.ERASURE_SCRUB_INTERVAL) },
  );
  let draining = false;
  const app = createApp(
    await appDepsFromEnv(env, services, {
      db: database.db,
      dbKind: database.kind,
      tokenizer: o200kTokenizer,
      logger,
      background: () => background,
      loopbackOnly: isLoopback(env.HOST),
      addressSource: "socket",
      recall: { ...(recall.resident ? { resident: recall.resident } : {}), ...(recall.ann ? { ann: recall.ann } : {}) },
      dashboard: await loadDashboard(),
      erasureScrub,
      readiness: {
        draining: () => draining,
        pipeline: () => pipelineDriver(env, embedded),
      },
      ...(overrides.metrics ? { metrics: overrides.metrics } : {}),
    }),
  );
  const stopPipelineGauges = registerPipelineGauges(database.db, { executor: embedded !== undefined });
  // Decay runs here under either executor (Inngest Cloud calls this process's functions): its counter starts at zero.
  startDecayCounter();
  const stopEmbedderGauges = registerEmbedderGauges(services.providers.embedder);
  const stopGauges = () => {
    stopPipelineGauges();
    stopEmbedderGauges();
  };
  const stopUpkeep = await startUpkeep(env, database, embedded, logger);
  logger.info("service ready", {
    database: database.kind,
    inngest: env.INNGEST_MODE,
    llm: services.providers.llm.id,
    embedder: services.providers.embedder.model,
  });
  return {
    app,
    database,
    providers: services.providers,
    executor: embedded?.executor,
    background,
    notifier: services.notifier,
    inngest: services.inngest,
    residentMemories: recall.resident,
    ann: recall.ann,
    async beginDrain() {
      draining = true;
      await stopUpkeep({ releaseRuns: true });
    },
    async close() {
      stopGauges();
      await recall.ann?.stop();
      // A scrub waiting out its interval runs now: the erased rows leave the files before the process does.
      void erasureScrub.flush();
      await background.settle();
      await stopUpkeep();
      await database.close();
    },
  };
}

/**
 * The database the configuration names (or the one `functions/node.ts` is already opening):
 * reachable (or start-up stops with the host and the cause), and migrated when embedded. A server
 * is migrated by `npx mnemo migrate` before a release; until then /readyz answers 503.
 */
async function openDatabase(env: Env, logger: Logger, pending: Promise<DatabaseHandle> | undefined): Promise<DatabaseHandle> {
  const database = await (pending ?? connectDatabase(databaseOptions(env), logger.warn));
  try {
    await assertReachable(database, env.DATABASE_URL);
    if (database.kind === "pglite") await migrateDatabase(database);
    else {
      const { applied, expected } = await migrationState(database.db);
      // A database that was never migrated has not even the executor's tables: the first query
      // failed with its SQL and a stack. One behind (a release rolling out) starts, not ready.
      if (applied === 0) {
        throw new StartupError(
          `DATABASE_URL ${whereTo(env.DATABASE_URL as string)}: the database was never migrated: run \`npx mnemo migrate\` with this DATABASE_URL first`,
        );
      }
      if (applied < expected) logger.warn("database migrations behind: not ready until `npx mnemo migrate` runs", { applied, expected });
    }
  } catch (error) {
    await database.close().catch(() => undefined);
    throw error;
  }
  return database;
}

/** Readiness of the pipeline's driver: the embedded executor runs (unless this process is told not to run one), or Inngest Cloud calls in. */
function pipelineDriver(env: Env, embedded: EmbeddedExecutor | undefined): ReturnType<Readiness["pipeline"]> {
  if (!embedded) return { driver: "inngest cloud", ready: true };
  if (!env.EXECUTOR_ENABLED) return { driver: "embedded executor, not run by this process (EXECUTOR_ENABLED=false)", ready: true };
  return { driver: "embedded executor", ready: embedded.executor.isRunning };
}

/**
 * Starts the executor (EXECUTOR_ENABLED) and, embedded, the vacuum and freeze PGlite needs; returns
 * what stops them (runs in flight finish, or with `releaseRuns` go back to the queue after their step).
 */
async function startUpkeep(
  env: Env,
  database: DatabaseHandle,
  embedded: EmbeddedExecutor | undefined,
  logger: Logger,
): Promise<(options?: { releaseRuns?: boolean }) => Promise<void>> {
  if (embedded && env.EXECUTOR_ENABLED) await embedded.executor.start();
  const intervalMs = durationMs(env.EMBEDDED_VACUUM_INTERVAL);
  const vacuum = database.kind === "pglite" ? scheduleVacuum(database.db, { intervalMs, logger }) : undefined;
  const freeze = database.kind === "pglite" ? scheduleFreeze(database.db, { intervalMs, logger }) : undefined;
  const stopXidGauge = registerXidAgeGauge(database.db);
  return async (options = {}) => {
    stopXidGauge();
    await Promise.all([embedded?.executor.stop(options), vacuum?.stop(), freeze?.stop()]);
  };
}
