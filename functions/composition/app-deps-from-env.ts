import type { Env } from "../../src/config/env.js";
import { DEFAULT_WINDOW_SETTINGS } from "../../src/context/assemble-context.js";
import type { Tokenizer } from "../../src/context/tokenizer.js";
import type { Database, DatabaseKind } from "../../src/db/database.js";
import type { ErasureScrub } from "../../src/db/erasure-scrub.js";
import { LiveEvents } from "../../src/live/live-events.js";
import { AccessRecorder } from "../../src/memory/lifecycle/access-recorder.js";
import type { AnnIndex } from "../../src/memory/recall/ann-index.js";
import { graphChannel } from "../../src/memory/recall/engines/graph-index.js";
import { CorpusStatisticsCache } from "../../src/memory/recall/engines/sql-bm25/corpus-statistics.js";
import type { RecallSettings } from "../../src/memory/recall/hybrid-recall.js";
import { QueryVectorCache } from "../../src/memory/recall/query-vector-cache.js";
import { executorPipelineView } from "../../src/pipeline/status/executor-view.js";
import { jobsPipelineView } from "../../src/pipeline/status/jobs-view.js";
import { UsageRecorder } from "../../src/usage/usage-recorder.js";
import { durationMs } from "../../src/util/duration.js";
import type { Logger } from "../../src/util/logger.js";
import type { BackgroundTasks } from "../background.js";
import type { AppDeps, DashboardFiles } from "../deps.js";
import type { AddressSource } from "../middleware/client-address.js";
import type { Readiness } from "../readiness.js";
import { securityFromEnv } from "../security.js";
import { scheduledDecay } from "../settings.js";
import type { PipelineServices } from "./pipeline-services.js";

/** What differs between Node and a Worker isolate once the pipeline's services exist. */
export interface AppPlatform {
  db: Database;
  dbKind: DatabaseKind;
  tokenizer: Tokenizer;
  logger: Logger;
  /** The after-response work of the process (Node) or of the request in progress (Workers). */
  background: () => BackgroundTasks;
  /** Whether the server listens on loopback only (never on Workers: there is no local interface to trust). */
  loopbackOnly: boolean;
  /** Where a client's address comes from: the TCP peer on Node, `cf-connecting-ip` on Workers. */
  addressSource: AddressSource;
  /** How often access counts are written; a Worker flushes right after each response (0). Default ACCESS_FLUSH_INTERVAL. */
  accessFlushMs?: number;
  /** The in-process recall engines Node may run: resident copies (embedded) or HNSW indexes (a server). */
  recall?: Pick<RecallSettings, "resident"> & { ann?: AnnIndex };
  /** What scrubs the relations an erasure deleted from, when this process runs it (Node). */
  erasureScrub?: ErasureScrub;
  /** The dashboard's files, when this process serves them (a Worker serves them as static assets). */
  dashboard?: DashboardFiles;
  /** Whether the process drains and whether its pipeline driver runs, for /readyz. */
  readiness: Readiness;
  /** The process's metrics in Prometheus text, when an SDK collects them (Node). */
  metrics?: { text(): Promise<string> };
}

/**
 * The one place the HTTP layer's dependencies are put together from configuration, for Node and
 * Workers alike; the platform brings what only it can (the database, the tokenizer, where
 * after-response work goes).
 *
 * @example
 * const services = await pipelineServices(env, pipelinePlatform);
 * const app = createApp(await appDepsFromEnv(env, services, appPlatform));
 */
export async function appDepsFromEnv(env: Env, services: PipelineServices, platform: AppPlatform): Promise<AppDeps> {
  const { db, recall } = platform;
  const { settings, clock, metered } = services;
  const decay = scheduledDecay(settings);
  const embedded = env.INNGEST_MODE === "embedded";
  return {
    db,
    dbKind: platform.dbKind,
    tokenizer: platform.tokenizer,
    redaction: env.REDACT,
    dailyTokenBudget: env.DAILY_TOKEN_BUDGET,
    replayMaxEvents: env.REPLAY_MAX_EVENTS,
    reflectionMaxEvents: env.REFLECTION_MAX_EVENTS,
    followingTurns: env.CONTEXT_FOLLOWING_TURNS,
    neighbourWeight: env.CONTEXT_NEIGHBOUR_WEIGHT,
    window: {
      ...DEFAULT_WINDOW_SETTINGS,
      excerptTokens: env.CONTEXT_EXCERPT_TOKENS,
      laterShare: env.CONTEXT_LATER_SHARE,
      laterSimilarity: env.CONTEXT_LATER_SIMILARITY,
      laterNames: env.CONTEXT_LATER_NAMES,
      questionTime: env.CONTEXT_QUESTION_TIME,
      spreadSessions: env.CONTEXT_SPREAD_SESSIONS,
      sourceTurns: env.CONTEXT_SOURCE_TURNS,
      askerFirst: env.CONTEXT_ASKER_FIRST,
      kindRecall: env.CONTEXT_KIND_RECALL,
      askerStatements: env.CONTEXT_ASKER_STATEMENTS,
      askerCentred: env.CONTEXT_ASKER_CENTRED,
      questionStatements: env.CONTEXT_QUESTION_STATEMENTS,
    },
    // The statistics and query caches live as long as the process or isolate, across requests.
    recall: {
      minTextCoverage: env.RECALL_MIN_TEXT_COVERAGE,
      plan: env.RECALL_PLAN,
      coverageWeighted: env.RECALL_COVERAGE_WEIGHTED,
      retentionLambda: decay.lambda,
      statistics: new CorpusStatisticsCache(),
      queryVectors: new QueryVectorCache({ capacity: env.QUERY_CACHE_SIZE, ttlMs: durationMs(env.QUERY_CACHE_TTL) }),
      ...(recall?.resident ? { resident: recall.resident } : {}),
      ...(env.RECALL_GRAPH ? { channels: [graphChannel()] } : {}),
    },
    clock,
    embedder: metered.embedder,
    llm: metered.llm,
    ...(recall?.ann ? { ann: recall.ann } : {}),
    ...(platform.erasureScrub ? { erasureScrub: platform.erasureScrub } : {}),
    notifier: services.notifier,
    pipeline: embedded ? executorPipelineView(db, metered.embedder.model) : jobsPipelineView(db, metered.embedder.model),
    // In embedded mode the serve handler runs unsigned (dev mode): only the executor reaches it, in-process.
    ...(embedded ? {} : { inngestHandler: services.inngestHandler }),
    get background() {
      return platform.background();
    },
    usageRecorder: new UsageRecorder(db),
    accessRecorder: new AccessRecorder(db, clock, platform.accessFlushMs ?? durationMs(env.ACCESS_FLUSH_INTERVAL)),
    maxBodyBytes: env.MAX_BODY_BYTES,
    ...(platform.dashboard ? { dashboard: platform.dashboard } : {}),
    decay,
    // Live streams see the events of requests this process (isolate) served; pipeline progress is read from the database.
    live: { bus: new LiveEvents(), pollMs: durationMs(env.LIVE_POLL_INTERVAL) },
    security: await securityFromEnv(env, platform.loopbackOnly, platform.addressSource),
    readiness: platform.readiness,
    ...(platform.metrics ? { metrics: platform.metrics } : {}),
    logger: platform.logger,
    log: platform.logger.error,
  };
}
