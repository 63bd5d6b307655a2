import { z } from "zod";
import { StartupError } from "../errors.js";
import { durationMs } from "../util/duration.js";
import { issuesLine } from "../util/issues-line.js";
import { REDACTION_KINDS, type RedactionKind } from "../vocabulary/redaction-kind.js";

const DURATION = /^\d+(ms|s|m|h)$/;

/** A duration such as "250ms", "2s", "5m" or "1h"; the unit is required so a value is never ambiguous. */
const DurationSchema = z.string().regex(DURATION, 'expected a duration such as "500ms", "2s", "5m" or "1h"');

/** A duration between `min` and `max` (both duration strings), e.g. a timeout that must not be 0. */
function boundedDuration(min: string, max: string) {
  // zod runs a refinement after a failed check too: a value that is no duration is left to the regex's message.
  return DurationSchema.refine(
    (value) => !DURATION.test(value) || (durationMs(value) >= durationMs(min) && durationMs(value) <= durationMs(max)),
    {
      message: `expected a duration from ${min} to ${max}`,
    },
  );
}

/** `REDACT`: a comma-separated list of kinds (`email,phone,card,secret`), or `all`; unset redacts nothing. */
const RedactSettingSchema = z
  .string()
  .transform((value) =>
    value
      .split(",")
      .map((kind) => kind.trim().toLowerCase())
      .filter(Boolean),
  )
  .pipe(z.array(z.enum([...REDACTION_KINDS, "all"])))
  .transform(
    (kinds): ReadonlySet<RedactionKind> => new Set(kinds.includes("all") ? REDACTION_KINDS : kinds.filter((kind) => kind !== "all")),
  );

const booleanFromEnv = z.enum(["true", "false", "1", "0"]).transform((value) => value === "true" || value === "1");

/**
 * Every setting the service reads, parsed once at start-up. Works the same from `process.env`
 * and from Worker bindings, because both are plain string records.
 *
 * @example
 * const config = parseEnv({ PORT: "8080", DATA_DIR: "/var/lib/memory" });
 */
export const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8787),
  /** Interface to listen on. Loopback by default, where API keys are optional (see AUTH_REQUIRED). */
  HOST: z.string().min(1).default("127.0.0.1"),
  /**
   * How long a stop (SIGTERM, SIGINT) may take: requests in flight finish, durable runs hand their
   * next step back to the queue, the database closes. Past it the process exits 1, abandoning what
   * is left (it resumes at the next start). Keep it below the orchestrator's grace period.
   */
  SHUTDOWN_TIMEOUT: boundedDuration("1s", "10m").default("10s"),
  /**
   * After SIGTERM, how long the port keeps accepting connections (each answer closing its own)
   * while load balancers, told by /readyz's 503, stop sending; then it closes. Part of
   * SHUTDOWN_TIMEOUT. `0s` closes it at once: a connection a client opens at that instant can be
   * reset by the kernel. SIGINT (a terminal) skips it.
   */
  SHUTDOWN_DELAY: boundedDuration("0s", "10m").default("5s"),
  /** How long a client may take to send a request's headers before its connection is closed (408). */
  HTTP_HEADERS_TIMEOUT: boundedDuration("1s", "10m").default("10s"),
  /** How long a client may take to send a whole request, body included, before its connection is closed (408). */
  HTTP_REQUEST_TIMEOUT: boundedDuration("1s", "1h").default("30s"),
  /** How long an idle keep-alive connection stays open for the client's next request. */
  HTTP_KEEP_ALIVE_TIMEOUT: boundedDuration("1s", "10m").default("5s"),
  /**
   * Whether every /v1 request needs an API key. `auto`: required unless the server listens on
   * loopback only (local development). A key that is presented is always checked.
   */
  AUTH_REQUIRED: z.enum(["auto", "true", "false"]).default("auto"),
  /** Operator key acting across apps; keep it in a secret store. Apps get keys from `npx mnemo create-key`. */
  ADMIN_API_KEY: z.string().min(32, "ADMIN_API_KEY must be at least 32 characters").optional(),
  /** Seconds a validated key is remembered (revocation takes effect within this time). */
  API_KEY_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
  /** Requests per minute per API key; 0 turns the limit off. */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(6000),
  /** Requests a key may send in a burst above the average rate. */
  RATE_LIMIT_BURST: z.coerce.number().int().min(1).default(1000),
  /** Requests per minute per client address, counted before any authentication work; 0 turns it off. */
  RATE_LIMIT_PER_ADDRESS_PER_MINUTE: z.coerce.number().int().min(0).default(30_000),
  RATE_LIMIT_ADDRESS_BURST: z.coerce.number().int().min(1).default(5000),
  /** Invalid API keys per minute per client address before keys from it are refused unchecked; 0 turns it off. */
  AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(0).default(30),
  /**
   * Reverse proxies in front of the Node server that append to `x-forwarded-for` (0: none; the
   * header is then ignored, as a client could write anything into it). Workers use `cf-connecting-ip`.
   */
  TRUST_PROXY: z.coerce.number().int().min(0).max(10).default(0),
  /**
   * Host names the server answers to (comma-separated; `*` for any), against DNS rebinding: a
   * request whose `Host` (or, on MCP, whose `Origin`) names another host is refused. Unset: the
   * loopback names while the server listens on loopback without keys, else any host.
   */
  ALLOWED_HOSTS: z
    .string()
    .optional()
    .transform((value) =>
      value === undefined
        ? undefined
        : value
            .split(",")
            .map((host) => host.trim().toLowerCase().replace(/\.$/, ""))
            .filter(Boolean),
    ),
  /** Shared secret for `POST /v1/webhooks/consolidate` (HMAC-SHA256); unset turns the webhook off. */
  WEBHOOK_SECRET: z.string().min(16, "WEBHOOK_SECRET must be at least 16 characters").optional(),
  /** How old a webhook signature's timestamp may be, in seconds, before it is refused. */
  WEBHOOK_TOLERANCE_SECONDS: z.coerce.number().int().min(1).max(3600).default(300),
  /** PGlite's data directory; "memory://" keeps the embedded database in memory (tests). */
  DATA_DIR: z.string().min(1).default("./.data"),
  /**
   * The embedded database runs in a worker thread of its own: its statements (Postgres in
   * WebAssembly) and the parsing of their results stay off the event loop. `false` runs it on the
   * main thread, as before (to compare, or where threads are unwelcome).
   */
  EMBEDDED_DATABASE_THREAD: booleanFromEnv.default(true),
  /** postgres://… uses node-postgres; a Neon host (or DATABASE_DRIVER=neon) uses the Neon driver. */
  DATABASE_URL: z.string().url().optional(),
  DATABASE_DRIVER: z.enum(["pglite", "pg", "neon"]).optional(),
  /** Connections the node-postgres / Neon pool may open. */
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(100).default(10),
  /** How long a request waits for a database connection before it is answered 503. */
  DATABASE_CONNECT_TIMEOUT: DurationSchema.default("5s"),
  /**
   * Named (prepared) statements for hot reads whose plan never depends on their values. Off for
   * a transaction-mode pooler that cannot keep them (PgBouncer before 1.21 or without
   * max_prepared_statements); Neon's pooler keeps them.
   */
  DATABASE_PREPARED_STATEMENTS: booleanFromEnv.default(true),
  /**
   * Neon's WebSocket proxy in front of a plain Postgres (`host:port/v1`, no scheme), for running
   * the Neon driver locally; unset for Neon itself.
   */
  NEON_WS_PROXY: z.string().min(1).optional(),
  LLM_PROVIDER: z.enum(["offline", "gemini", "openai"]).default("offline"),
  EMBEDDING_PROVIDER: z.enum(["offline", "gemini", "openai"]).default("offline"),
  /** How long one LLM or embedding call may take before it counts as failed (and is retried). */
  PROVIDER_TIMEOUT: DurationSchema.default("60s"),
  GEMINI_API_KEY: z.string().min(1).optional(),
  GEMINI_MODEL: z.string().min(1).default("gemini-3.8-flash"),
  /** Gemini 3 thinking level for summaries and extraction; unset leaves the model's default. */
  GEMINI_THINKING_LEVEL: z.enum(["minimal", "low", "medium", "high"]).optional(),
  GEMINI_EMBEDDING_MODEL: z.string().min(1).default("gemini-embedding-001"),
  /** gemini-embedding-001 returns 3,072 dimensions, shortened on request (768, 1,536 and 3,072 are recommended). */
  GEMINI_EMBEDDING_DIMENSIONS: z.coerce.number().int().min(1).max(4000).default(768),
  GEMINI_BASE_URL: z.string().url().optional(),
  /** Any OpenAI-compatible server: OpenAI when unset, or Ollama, vLLM, llama.cpp, LM Studio (e.g. http://localhost:11434/v1). */
  OPENAI_BASE_URL: z.string().url().optional(),
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_MODEL: z.string().min(1).optional(),
  OPENAI_EMBEDDING_MODEL: z.string().min(1).optional(),
  /** Sent as `dimensions` (models that can shorten their vectors) and checked; unset takes what the model returns. */
  OPENAI_EMBEDDING_DIMENSIONS: z.coerce.number().int().min(1).max(4000).optional(),
  /** How extraction output is constrained: a strict JSON schema, JSON mode, or the prompt alone (older servers). */
  OPENAI_RESPONSE_FORMAT: z.enum(["json_schema", "json_object", "text"]).default("json_schema"),
  /** Where the Inngest SDK sends events and where Inngest reaches us; unset in embedded mode. */
  INNGEST_MODE: z.enum(["embedded", "cloud"]).default("embedded"),
  INNGEST_BASE_URL: z.string().url().optional(),
  INNGEST_EVENT_KEY: z.string().min(1).optional(),
  INNGEST_SIGNING_KEY: z.string().min(1).optional(),
  /**
   * Encrypts every step and function output end to end (they hold users' words: loaded events,
   * summaries, extractions), so Inngest Cloud's store — and the embedded executor's tables — keep
   * only ciphertext. Rotate by moving the old key into INNGEST_ENCRYPTION_FALLBACK_KEYS.
   */
  INNGEST_ENCRYPTION_KEY: z.string().min(32, "INNGEST_ENCRYPTION_KEY must be at least 32 characters").optional(),
  /** Comma-separated older keys that still decrypt runs in flight during a rotation. */
  INNGEST_ENCRYPTION_FALLBACK_KEYS: z
    .string()
    .optional()
    .transform((value) =>
      value
        ? value
            .split(",")
            .map((key) => key.trim())
            .filter(Boolean)
        : [],
    ),
  /** Quiet period before a session's new events are summarised (Inngest debounce). */
  REPLAY_DEBOUNCE: DurationSchema.default("2s"),
  /** Longest a busy session waits for its summary while events keep arriving. */
  REPLAY_DEBOUNCE_TIMEOUT: DurationSchema.default("1m"),
  /** Most events one episodic summary covers; longer backlogs become several episodes. */
  REPLAY_MAX_EVENTS: z.coerce.number().int().min(1).max(1000).default(40),
  /**
   * How many of a context window's best turn hits bring the turn that follows them (an answer
   * usually follows its question). Chosen by cross-validation on LoCoMo dev (npm run eval:locomo -- --cv),
   * with RECALL_MIN_TEXT_COVERAGE at its default: both folds chose 5.
   */
  CONTEXT_FOLLOWING_TURNS: z.coerce.number().int().min(0).max(100).default(5),
  /**
   * Most tokens of a memory a context window packs whole; a longer one is packed as the sentences
   * that hold the query's words (an excerpt, expandable by id). 0 packs every memory whole, but
   * the asker's own statements read first (CONTEXT_ASKER_STATEMENTS), cut as short as a note. 60: on
   * LoCoMo dev (npm run eval:locomo -- --ablate CONTEXT_EXCERPT_TOKENS --values 0,60) both
   * conversations choose it, and recall rises at every budget (0.831 → 0.854 at 1,000 tokens).
   */
  CONTEXT_EXCERPT_TOKENS: z.coerce.number().int().min(0).max(100_000).default(60),
  /**
   * Share of a context window's budget that pays for later statements: the window's facts and
   * first statements of the user's are shown with the user's nearest later turn on their subject
   * from another session, dated (what was said since), as many as this share pays for. Each of
   * the asker's own statements read first (CONTEXT_ASKER_STATEMENTS), twice as many as the notes
   * this share pays for, is looked past besides, and their notes may take up to twice the share
   * besides. 0 turns later statements off, and the asker's own statements with them.
   */
  CONTEXT_LATER_SHARE: z.coerce.number().min(0).max(0.5).default(0.2),
  /** Least cosine between a statement and a later turn of the user's for the turn to be shown beside it. */
  CONTEXT_LATER_SIMILARITY: z.coerce.number().min(0).max(1).default(0.45),
  /**
   * Of a statement's later turns near it by meaning, those that name someone it named (a person or
   * pet of the user's graph, not a speaker of the user's conversations) come first, however near the
   * others are.
   */
  CONTEXT_LATER_NAMES: booleanFromEnv.default(true),
  /** The time a question names ("last month", "these days", "first") orders a window's memories. */
  CONTEXT_QUESTION_TIME: booleanFromEnv.default(false),
  /** A question over many occasions ("how many …") takes each session's best hit before any second. */
  CONTEXT_SPREAD_SESSIONS: booleanFromEnv.default(false),
  /** How many of a context window's first facts bring the turns they were derived from (0: none). */
  CONTEXT_SOURCE_TURNS: z.coerce.number().int().min(0).max(100).default(0),
  /** A question the user asks about themselves ("which gym do I go to?") puts the user's own turns ahead of the assistant's. */
  CONTEXT_ASKER_FIRST: booleanFromEnv.default(false),
  /** A question about a kind of thing (a taste, a habit, a goal) also recalls the user's own statements of that kind, nearest first. */
  CONTEXT_KIND_RECALL: booleanFromEnv.default(false),
  /** A question about how the asker stands now ("what do I drive?") reads the user's own statements nearest to it first, each beside what was said later. */
  CONTEXT_ASKER_STATEMENTS: booleanFromEnv.default(true),
  /**
   * Those statements are the user's turns nearest to the question and to its statement form
   * together (the mean of the two cosines), each vector centred on the mean of the user's newest
   * turns: what all of a user's turns share ranks none above another. false:
   * nearest to the statement form alone (docs/evaluation.md).
   */
  CONTEXT_ASKER_CENTRED: booleanFromEnv.default(true),
  /**
   * A question may state something of its asker on the way ("Now that we have sold the car, how do
   * we get around?"): read as one of their statements, to find and to show beside what came before.
   * Off by default: with the offline embedder, on sets it was not made on, it brought a stale first
   * statement into a window without its change once, beside two newer statements (docs/evaluation.md).
   */
  CONTEXT_QUESTION_STATEMENTS: booleanFromEnv.default(false),
  /**
   * Least share of a query's BM25 weight a memory must match to be a full-text candidate. Without
   * it, once a query's telling words run out, the text ranking fills with memories that match only
   * its common words (the two speakers' names, in a conversation between them) and short ones win
   * by length. Chosen by cross-validation on LoCoMo dev (npm run eval:locomo -- --cv --setting RECALL_MIN_TEXT_COVERAGE).
   */
  RECALL_MIN_TEXT_COVERAGE: z.coerce.number().min(0).max(1).default(0.2),
  /**
   * A text hit counts in the fusion by the share of the query's BM25 weight it matches, so a
   * memory holding only the query's commonest word does not count as much as one holding all.
   */
  RECALL_COVERAGE_WEIGHTED: booleanFromEnv.default(false),
  /**
   * The entity graph as a third recall channel beside vector and text: the entities a query names,
   * their neighbourhood to two hops, and the memories of the events that mention them (docs/graph.md).
   * Off by default: on both development sets it raised no category's evidence recall and cost some
   * (docs/graph.md, "Measuring"); the entities and relations are kept and served either way.
   */
  RECALL_GRAPH: booleanFromEnv.default(false),
  /**
   * How recall asks the database. `auto`: on a server, the rankings, their fusion, the rows, the
   * turns that follow and what a context window reads ahead in one statement (one round trip;
   * docs/recall.md), channel by channel on the embedded database; `channels`: a statement per
   * step everywhere (the path before the composed plan, for comparison); `composed`: one statement
   * wherever the engines can, the embedded database too.
   */
  RECALL_PLAN: z.enum(["auto", "channels", "composed"]).default("auto"),
  /**
   * Share of the better fused score of its neighbours (the turns just before and after it in its
   * session) that a turn recalled for a context window gains: evidence runs over consecutive turns,
   * and a question's words often sit in only one of them. Search leaves it out: its results mix
   * facts with turns, and a fact that answers the query must not sink behind the turns beside a
   * hit. Nor does a window whose asker's own statements are read (CONTEXT_ASKER_STATEMENTS): its
   * answer is a statement said in one turn. Chosen by cross-validation on LoCoMo dev
   * (npm run eval:locomo -- --cv --setting CONTEXT_NEIGHBOUR_WEIGHT); 0 turns it off.
   */
  CONTEXT_NEIGHBOUR_WEIGHT: z.coerce.number().min(0).max(2).default(0.5),
  /** Quiet period before a session's deep reflection starts. */
  REFLECTION_DEBOUNCE: DurationSchema.default("5s"),
  /** Most events one extraction call sees. */
  REFLECTION_MAX_EVENTS: z.coerce.number().int().min(1).max(500).default(50),
  /** Sum of unreflected event importance that triggers reflection before the session ends. */
  REFLECTION_IMPORTANCE_THRESHOLD: z.coerce.number().min(0).default(8),
  /** Appends to one session within this window are announced to the pipeline as one event. */
  EMIT_COALESCE_WINDOW: DurationSchema.default("200ms"),
  /** Access counts of returned memories are written in one batch per interval. */
  ACCESS_FLUSH_INTERVAL: DurationSchema.default("1s"),
  /**
   * Query vectors kept per process (least recently used beyond it; 0 embeds every query): each
   * step of an agent's tool loop asks for context with the same user message.
   */
  QUERY_CACHE_SIZE: z.coerce.number().int().min(0).max(100_000).default(1000),
  /** How long a cached query vector lives: another process's copy outlives an erasure by at most this. */
  QUERY_CACHE_TTL: DurationSchema.default("10m"),
  EMBED_BATCH_SIZE: z.coerce.number().int().min(1).max(256).default(64),
  /**
   * Batches embedded at once: the offline model's worker threads (default: one per core, at most
   * four), or concurrent requests to Gemini / an OpenAI-compatible server (default 4).
   */
  EMBED_WORKERS: z.coerce.number().int().min(1).max(64).optional(),
  /** How often the sweep re-emits events for sessions whose backlog was never replayed. */
  SWEEP_CRON: z.string().min(9).default("*/1 * * * *"),
  /** A session is swept only when its newest event is older than this. */
  SWEEP_MIN_AGE: DurationSchema.default("30s"),
  /**
   * Failed runs in a row (each after its own retries) before a stage of a session or user is
   * parked: the sweep stops re-sending it until `POST /v1/pipeline/retry`. A non-retryable error parks at once.
   */
  PIPELINE_MAX_FAILURES: z.coerce.number().int().min(1).max(100).default(3),
  /** How long a claimed run of the embedded executor stays its process's without renewal. */
  EXECUTOR_LEASE: DurationSchema.default("30s"),
  /** How long the embedded executor keeps finished runs and their memoized steps (which hold users' words). */
  EXECUTOR_RETENTION: z
    .string()
    .regex(/^\d+(ms|s|m|h|d)$/, 'expected a duration such as "12h" or "7d"')
    .default("7d"),
  /** When scheduled decay runs (default daily at 03:00 UTC) and with which preset. */
  DECAY_CRON: z.string().min(9).default("0 3 * * *"),
  DECAY_PRESET: z.enum(["default", "high_interaction", "low_interaction", "sensitive", "knowledge"]).default("default"),
  DECAY_MIN_AGE_DAYS: z.coerce.number().min(0).max(3650).default(7),
  /** Memories per decay batch: each batch is one short transaction. */
  DECAY_BATCH_SIZE: z.coerce.number().int().min(10).max(50_000).default(1000),
  /** How long one durable step of a decay pass runs batches before it saves its cursor (0: one batch per step). */
  DECAY_STEP_BUDGET: DurationSchema.default("1s"),
  /** Days a forgotten memory stays recoverable before decay deletes it for good. */
  DECAY_PURGE_AFTER_DAYS: z.coerce.number().min(0).max(3650).default(30),
  /** Most current memories per user; 0 means no quota. */
  MEMORY_QUOTA_PER_USER: z.coerce.number().int().min(0).default(0),
  /**
   * Tokens (input + output, every provider and stage) an app may spend per UTC day before deep
   * reflection parks until the next day; 0 means no budget.
   */
  DAILY_TOKEN_BUDGET: z.coerce.number().int().min(0).default(0),
  /** How often a live event stream (GET /v1/live) reads pipeline progress from the database. */
  LIVE_POLL_INTERVAL: DurationSchema.default("1s"),
  MAX_BODY_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  /**
   * How often the embedded database (PGlite, which runs no autovacuum) checks for tables due a
   * VACUUM or ANALYZE by autovacuum's default thresholds. Ignored on a server, which has its own.
   */
  EMBEDDED_VACUUM_INTERVAL: DurationSchema.default("1m"),
  /**
   * After an erasure, tables it deleted from up to this size (MB, indexes included) are rewritten
   * so no byte of the erased rows stays in their files; larger ones are only vacuumed (a rewrite
   * holds the table, and the one embedded connection, for as long as it copies). 0: vacuum only.
   */
  ERASURE_REWRITE_MAX_MB: z.coerce.number().min(0).default(16),
  /**
   * At most one scrub of the erased relations starts per this period: erasures within it share the
   * next pass, so a caller repeating an erasure cannot keep the tables (or the one embedded
   * connection) rewritten. An erased row's bytes leave the files within this period and one pass.
   */
  ERASURE_SCRUB_INTERVAL: boundedDuration("0s", "1h").default("1m"),
  /** Longest wait of the embedded executor between queue checks when nothing is due. */
  EXECUTOR_POLL_INTERVAL: DurationSchema.default("1s"),
  /** First retry delay of the embedded executor; doubles per attempt, with jitter, up to a minute. */
  EXECUTOR_RETRY_BASE: DurationSchema.default("1s"),
  EXECUTOR_ENABLED: booleanFromEnv.default(true),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  /** OTLP/HTTP collector (e.g. http://collector:4318): spans are exported to `<endpoint>/v1/traces`; unset, nothing is traced. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  /** Headers of every export, `name=value` pairs separated by commas (values URL-encoded), e.g. a collector's API key. */
  OTEL_EXPORTER_OTLP_HEADERS: z
    .string()
    .optional()
    .transform((value, context) => {
      const headers: Record<string, string> = {};
      for (const pair of (value ?? "").split(",").filter((part) => part.trim())) {
        const at = pair.indexOf("=");
        if (at <= 0) {
          context.addIssue({ code: "custom", message: "expected name=value pairs separated by commas" });
          return z.NEVER;
        }
        headers[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
      }
      return headers;
    }),
  /** `service.name` of the spans and metrics. */
  OTEL_SERVICE_NAME: z.string().min(1).default("mnemo-pipeline"),
  /** Share of new traces recorded (0-1); a request that arrives with a sampled `traceparent` is always traced. */
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(1),
  /**
   * `auto`: on a real Postgres, build (concurrently, in the background) and use an HNSW index for
   * the configured embedding model; embedded, keep queried users' memories (vectors and words) in
   * this process for both arms of recall (RESIDENT_MEMORIES_MAX_MB); `off`: binary-quantised candidates re-ranked exactly, always.
   */
  ANN_INDEX: z.enum(["auto", "off"]).default("auto"),
  /**
   * Embedded (PGlite) with ANN_INDEX=auto: most memory the in-process copies of users' memories may
   * take together (about 1.1 KB per 512-d memory, so 110 MB for a user with 100K memories). The least
   * recently queried users are dropped first; a user larger than this alone is recalled from the database.
   */
  RESIDENT_MEMORIES_MAX_MB: z.coerce.number().int().min(1).max(65_536).default(1024),
  /**
   * `maintenance_work_mem` for building that index: a graph larger than this is built on disk,
   * several times slower (100K 512-d vectors make a 158MB index). The server must have it to spare.
   */
  ANN_INDEX_BUILD_MEMORY: z
    .string()
    .regex(/^\d+(kB|MB|GB)$/, 'expected a Postgres memory size such as "256MB" or "1GB"')
    .default("512MB"),
  /**
   * Real Postgres with ANN_INDEX=auto: a user with at least this many embedded memories gets an
   * HNSW index of their own (0: never). In the index of every user a large user's search is a
   * filtered walk through other users' vectors, slow and approximate; their own graph is neither.
   */
  ANN_USER_INDEX_MIN_MEMORIES: z.coerce.number().int().min(0).default(20_000),
  /** At most this many users (the largest) have an index of their own: each costs every insert and plan a little. */
  ANN_USER_INDEX_MAX: z.coerce.number().int().min(0).max(1_000).default(20),
  /** How often the service checks who has grown past (or fallen well below) that size. */
  ANN_USER_INDEX_INTERVAL: DurationSchema.default("10m"),
  /**
   * Write-time redaction: detected values of these kinds are replaced before an event, a memory or
   * a query reaches the log, a table or a provider (`email,phone,card,secret` or `all`).
   */
  REDACT: RedactSettingSchema.default(new Set<RedactionKind>()),
  /**
   * Shifts the memory's clock (validity, recency, retention, decay, recorded times) by a duration,
   * e.g. "60d" to see what decay does two months on, against a copy of the data. Not for production.
   */
  CLOCK_OFFSET: z
    .string()
    .regex(/^-?\d+(ms|s|m|h|d)$/, 'expected a duration such as "60d" or "-12h"')
    .optional(),
});

export type Env = z.infer<typeof EnvSchema>;

/**
 * Parses the environment once; an invalid setting stops start-up (`StartupError`) with every bad
 * field named, and so does a setting that the chosen mode or provider cannot do without.
 */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const present = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined && value !== ""));
  const result = EnvSchema.safeParse(present);
  if (!result.success) {
    throw new StartupError(`Invalid configuration: ${issuesLine(result.error)}`);
  }
  const env = result.data;
  if (durationMs(env.HTTP_HEADERS_TIMEOUT) > durationMs(env.HTTP_REQUEST_TIMEOUT)) {
    throw new StartupError("Invalid configuration: HTTP_HEADERS_TIMEOUT: must not be longer than HTTP_REQUEST_TIMEOUT");
  }
  // A stop waits out the delay, and lets idle keep-alive connections expire rather than close them under a request.
  for (const name of ["SHUTDOWN_DELAY", "HTTP_KEEP_ALIVE_TIMEOUT"] as const) {
    if (durationMs(env[name]) >= durationMs(env.SHUTDOWN_TIMEOUT)) {
      throw new StartupError(
        `Invalid configuration: ${name}: must be shorter than SHUTDOWN_TIMEOUT (${env.SHUTDOWN_TIMEOUT}), which bounds the whole stop`,
      );
    }
  }
  const missing = requiredSettings(env).filter(({ name }) => env[name] === undefined);
  if (missing.length > 0) {
    throw new StartupError(`Invalid configuration: ${missing.map(({ name, by }) => `${name}: required ${by}`).join("; ")}`);
  }
  return env;
}

/** Settings the chosen Inngest mode and providers cannot do without, and what requires each. */
function requiredSettings(env: Env): { name: keyof Env; by: string }[] {
  const required: { name: keyof Env; by: string }[] = [];
  const uses = (provider: Env["LLM_PROVIDER"]) => env.LLM_PROVIDER === provider || env.EMBEDDING_PROVIDER === provider;
  const byProvider = "by the selected provider";
  if (uses("gemini")) required.push({ name: "GEMINI_API_KEY", by: byProvider });
  if (env.LLM_PROVIDER === "openai") required.push({ name: "OPENAI_MODEL", by: byProvider });
  if (env.EMBEDDING_PROVIDER === "openai") required.push({ name: "OPENAI_EMBEDDING_MODEL", by: byProvider });
  // OpenAI itself needs a key; a local server usually does not.
  if (uses("openai") && !env.OPENAI_BASE_URL) required.push({ name: "OPENAI_API_KEY", by: byProvider });
  // Without them events are refused by Inngest (the pipeline never runs) and /api/inngest cannot verify its callers.
  if (env.INNGEST_MODE === "cloud") {
    required.push({ name: "INNGEST_EVENT_KEY", by: "when INNGEST_MODE=cloud (events are sent with it)" });
    required.push({ name: "INNGEST_SIGNING_KEY", by: "when INNGEST_MODE=cloud (/api/inngest verifies Inngest's calls with it)" });
  }
  return required;
}
