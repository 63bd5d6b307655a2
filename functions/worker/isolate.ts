import { parseEnv } from "../../src/config/env.js";
import { registerServerPool } from "../../src/db/pool-statements.js";
import { createHashingEmbedder } from "../../src/providers/offline/hashing-embedder.js";
import { createLogger, type Logger } from "../../src/util/logger.js";
import { type App, createApp } from "../app.js";
import { appDepsFromEnv } from "../composition/app-deps-from-env.js";
import { pipelineServices } from "../composition/pipeline-services.js";
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
  // Inngest Cloud drives the pipeline: parseEnv requires its event and signing keys.
  const env = parseEnv({ ...strings, INNGEST_MODE: "cloud", DATABASE_URL: connectionString });
  const logger = createLogger(env.LOG_LEVEL);
  // No named statements: whether a pooler in front (Hyperdrive) keeps them across requests is not ours to rely on.
  registerServerPool(scopedDatabase, scopedConnection, { prepared: false });
  const tokenizer = await loadTokenizer(bindings.ASSETS);
  const services = await pipelineServices(env, { db: scopedDatabase, tokenizer, offline: { embedder: createHashingEmbedder }, logger });
  const deps = await appDepsFromEnv(env, services, {
    db: scopedDatabase,
    dbKind: "pg",
    tokenizer,
    logger,
    // After-response work is the request's own: its connection stays open until that work is done.
    background: () => currentScope().background,
    loopbackOnly: false,
    addressSource: "cf-connecting-ip",
    // Access counts are flushed right after the response, while the request's connection is still open.
    accessFlushMs: 0,
    // An isolate is never told to drain; Inngest Cloud drives the pipeline (its keys are required).
    readiness: { draining: () => false, pipeline: () => ({ driver: "inngest cloud", ready: true }) },
  });
  return { app: createApp(deps), logger, connectionString };
}
