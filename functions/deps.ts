// The HTTP layer's environment, as types only: what the app is handed (`AppDeps`) and the Hono env
// its routes are typed with (`AppEnv`). This module imports nothing else of `functions/`, so every
// file of the layer may depend on it and none of them is depended on through it. Middleware that
// sets a context variable declares it itself and augments Hono's `ContextVariableMap`, as Hono's own
// `request-id` does (see `middleware/auth.ts` for `principal`).
import type { Context } from "hono";
import type { KeyResolver } from "../src/auth/api-keys.js";
import type { WindowSettings } from "../src/context/assemble-context.js";
import type { Tokenizer } from "../src/context/tokenizer.js";
import type { Database, DatabaseKind } from "../src/db/database.js";
import type { ErasureScrub } from "../src/db/erasure-scrub.js";
import type { LiveEvents } from "../src/live/live-events.js";
import type { AccessRecorder } from "../src/memory/lifecycle/access-recorder.js";
import type { AnnIndex } from "../src/memory/recall/ann-index.js";
import type { RecallSettings } from "../src/memory/recall/hybrid-recall.js";
import type { PipelineNotifier } from "../src/pipeline/notifier.js";
import type { PipelineView } from "../src/pipeline/status/pipeline-view.js";
import type { Embedder, LanguageModel } from "../src/providers/types.js";
import type { RedactionPolicy } from "../src/redaction/redact.js";
import type { UsageRecorder } from "../src/usage/usage-recorder.js";
import type { Clock } from "../src/util/clock.js";
import type { Logger } from "../src/util/logger.js";
import type { Readiness } from "./readiness.js";

export type Log = (message: string, fields?: Record<string, unknown>) => void;

/** Work that must finish after the response (`background.ts` implements it). */
export interface Background {
  run(c: Context, label: string, work: () => Promise<unknown>): void;
}

/** The dashboard's two static files (functions/public/), read once at start-up. */
export interface DashboardFiles {
  page: string;
  script: string;
}

/** A token-bucket limit: `perMinute` on average, bursts up to `burst`. */
export interface RateLimitSetting {
  perMinute: number;
  burst: number;
}

/** How requests are authenticated and limited; the same on Node and Workers (`security.ts` reads it from configuration). */
export interface SecuritySettings {
  authRequired: boolean;
  resolveKey: KeyResolver;
  /** The client's address, for the limits that run before authentication. */
  address: (c: Context) => string;
  /** Per address, before any authentication work. */
  perAddress?: RateLimitSetting;
  /** Failed key checks allowed per address and minute. */
  authFailuresPerMinute?: number;
  /** Host names (lower case, `[::1]` for IPv6) a request's Host may name; undefined answers any host. */
  allowedHosts?: ReadonlySet<string>;
  /** Per API key, after authentication. */
  perKey?: RateLimitSetting;
  webhook?: { secret: string; toleranceSeconds: number };
}

/** What the HTTP layer needs; built once per process (Node) or per isolate (Workers). */
export interface AppDeps {
  db: Database;
  dbKind: DatabaseKind;
  tokenizer: Tokenizer;
  /** Where "now" comes from for everything the memory decides or records by time. */
  clock: Clock;
  embedder: Embedder;
  /** The pipeline's language model (metered): a rebuild preview derives with it in the request. */
  llm: LanguageModel;
  /** Events per deep-reflection chunk (REFLECTION_MAX_EVENTS), for a rebuild preview's derivation. */
  reflectionMaxEvents: number;
  /** The embedding model's HNSW index on real Postgres (built in the background at start-up). */
  ann?: AnnIndex;
  /** Rewrites (or vacuums) and checkpoints the relations an erasure deleted from, after the response (Node). */
  erasureScrub?: Pick<ErasureScrub, "afterErasure">;
  /** How recall ranks: the text-coverage floor (RECALL_MIN_TEXT_COVERAGE), BM25's statistics cache, the query vector cache. */
  recall: RecallSettings;
  /** Tokens per app and UTC day before deep reflection parks (DAILY_TOKEN_BUDGET; 0: none). */
  dailyTokenBudget: number;
  /** How many of a context window's best turn hits bring their next turn (CONTEXT_FOLLOWING_TURNS). */
  followingTurns: number;
  /** What a context window's turns gain from a well-ranked neighbour (CONTEXT_NEIGHBOUR_WEIGHT), unless it reads the asker's own statements. */
  neighbourWeight: number;
  /** How a context window cuts and orders what recall offers (CONTEXT_EXCERPT_TOKENS…). */
  window: WindowSettings;
  /** Events per fast-replay chunk (REPLAY_MAX_EVENTS): a redaction moves replay back to its event's chunk. */
  replayMaxEvents: number;
  /** Write-time redaction (REDACT): what is replaced in events, memories and queries before anything stores or sends them. */
  redaction: RedactionPolicy;
  /** Sends pipeline events to Inngest (Cloud, or the embedded executor's event API). */
  notifier: PipelineNotifier;
  pipeline: PipelineView;
  /** The Inngest serve handler, mounted at /api/inngest when Inngest Cloud calls in over HTTP. */
  inngestHandler?: (c: Context) => Promise<Response>;
  background: Background;
  /** Writes requests' query usage in batches, after their responses. */
  usageRecorder: UsageRecorder;
  /** Batches access counts of memories that reads returned. */
  accessRecorder: AccessRecorder;
  maxBodyBytes: number;
  security: SecuritySettings;
  /** The dashboard's files, served by this app on Node (a Worker serves them as static assets). */
  dashboard?: DashboardFiles;
  /** The scheduled decay's λ and threshold, reported with memory health (the dashboard draws the curve). */
  decay: { lambda: number; threshold: number };
  /** Live events (SSE): the in-process bus and how often streams read pipeline progress. */
  live: { bus: LiveEvents; pollMs: number };
  /** Where access lines and warnings go (`log` is its error level). */
  logger: Logger;
  /** The Prometheus text of the process's metrics, served at /metrics (absent on Workers). */
  metrics?: { text(): Promise<string> };
  /** What /readyz asks beyond the database: draining, and whether the pipeline has a driver. */
  readiness: Readiness;
  log: Log;
}

/**
 * The Hono env of a route or middleware that uses only some dependencies: `deps` holds those, so
 * the type checker proves it touches nothing else (the app sets the whole `AppDeps`, which has
 * them all). As Hono's own middleware each declare the few variables they use.
 *
 * @example
 * const routes = apiRoutes<"db" | "clock">(); // c.var.deps.db, c.var.deps.clock, and nothing else
 */
export type DepsEnv<Needs extends keyof AppDeps> = { Variables: { deps: Pick<AppDeps, Needs> } };

/** The Hono env of the app itself: every dependency. */
export type AppEnv = DepsEnv<keyof AppDeps>;
