import type { Context } from "hono";
import { serve as serveInngest } from "inngest/hono";
import { createPipelineClient, type PipelineClient, type PipelineSettings } from "../../inngest/client.js";
import { createPipelineFunctions } from "../../inngest/index.js";
import type { Env } from "../../src/config/env.js";
import type { Tokenizer } from "../../src/context/tokenizer.js";
import type { Database } from "../../src/db/database.js";
import { createPipelineNotifier, type PipelineNotifier } from "../../src/pipeline/notifier.js";
import { createProviders, type OfflineModels, type Providers } from "../../src/providers/index.js";
import { traceProviders } from "../../src/providers/traced-providers.js";
import { meterProviders } from "../../src/usage/metered-providers.js";
import type { Clock } from "../../src/util/clock.js";
import { durationMs } from "../../src/util/duration.js";
import type { Logger } from "../../src/util/logger.js";
import { clockOf, inngestConnection, pipelineSettings, providerChoice } from "../settings.js";

/** What the platform (Node or a Worker isolate) brings to the pipeline's services. */
export interface PipelinePlatform {
  /** The database (on Workers: the request in progress's, through a proxy). */
  db: Database;
  tokenizer: Tokenizer;
  /**
   * The offline models this platform can run: on Node USE-lite and the rule model in worker
   * threads; on Workers the hashing embedder and the rule model in the isolate.
   */
  offline: OfflineModels;
  logger: Logger;
  /** Embedded mode: the in-process executor's event API, where the Inngest client sends events. */
  executor?: { fetch: typeof fetch; baseUrl: string };
  /** The origin Inngest would call the serve handler at, when the request's own cannot be trusted. */
  serveOrigin?: string;
  /** Replaces chosen providers (tests, simulations); metering still wraps them. */
  providers?: Partial<Providers>;
  /** Replaces the clock CLOCK_OFFSET implies (a simulation moves it by hand). */
  clock?: Clock;
  /** A simulation's choice: replay and reflection stamp what they derive at the end of its session (`PipelineDeps.derivedAt`). */
  deriveAtSessionEnd?: boolean;
}

/** The providers, the Inngest client with its functions and serve handler, and the notifier that feeds it. */
export interface PipelineServices {
  settings: PipelineSettings;
  clock: Clock;
  /** As chosen, before metering. */
  providers: Providers;
  /** Every call the pipeline and the routes make is metered (GET /v1/usage, DAILY_TOKEN_BUDGET) and traced. */
  metered: Providers;
  inngest: PipelineClient;
  /** The serve handler: mounted at /api/inngest in cloud mode, or driven in-process by the embedded executor. */
  inngestHandler: (c: Context) => Promise<Response>;
  notifier: PipelineNotifier;
}

/**
 * Builds what the pipeline runs on from configuration, the same on Node and Workers.
 *
 * @example
 * const services = await pipelineServices(env, { db, tokenizer, offline: { embedder: createHashingEmbedder }, logger });
 * await services.notifier.eventsAppended(progress);
 */
export async function pipelineServices(env: Env, platform: PipelinePlatform): Promise<PipelineServices> {
  const settings = pipelineSettings(env);
  const clock = platform.clock ?? clockOf(env);
  const providers = { ...(await createProviders(providerChoice(env), platform.offline)), ...platform.providers };
  const metered = traceProviders(
    meterProviders(providers, {
      db: platform.db,
      clock,
      llmProvider: env.LLM_PROVIDER,
      embeddingProvider: env.EMBEDDING_PROVIDER,
      countTokens: (text) => platform.tokenizer.count(text),
    }),
  );
  const inngest = createPipelineClient(
    {
      mode: env.INNGEST_MODE,
      ...(platform.executor ? { fetch: platform.executor.fetch, baseUrl: platform.executor.baseUrl } : {}),
      ...inngestConnection(env, platform.logger),
    },
    {
      db: platform.db,
      clock,
      llm: metered.llm,
      embedder: metered.embedder,
      settings,
      ...(platform.deriveAtSessionEnd
        ? { derivedAt: (session: { endedAt: string | null }) => (session.endedAt ? new Date(session.endedAt) : clock.now()) }
        : {}),
    },
  );
  const functions = createPipelineFunctions(inngest, settings);
  const inngestHandler = serveInngest({
    client: inngest,
    functions,
    ...(platform.serveOrigin ? { serveOrigin: platform.serveOrigin } : {}),
  });
  const notifier = createPipelineNotifier((events) => inngest.send(events), durationMs(env.EMIT_COALESCE_WINDOW));
  return { settings, clock, providers, metered, inngest, inngestHandler, notifier };
}
