import { parseEnv } from "../src/config/env.js";
import { connectDatabase } from "../src/db/connect.js";
import { startNodeTelemetry } from "../src/telemetry/node-sdk.js";
import { durationMs } from "../src/util/duration.js";
import { createLogger } from "../src/util/logger.js";
import { listen } from "./node-server.js";
import { databaseOptions } from "./settings.js";
import { stopWithin } from "./shutdown.js";
import { reportStartupFailure } from "./startup-failure.js";

/** Node entry: `npm start`. Embedded by default (PGlite under DATA_DIR, offline providers). */
async function main(): Promise<void> {
  const env = parseEnv(process.env);
  const logger = createLogger(env.LOG_LEVEL);
  // Before anything records: the metrics API has no proxy, and spans need the context manager.
  const telemetry = startNodeTelemetry({
    serviceName: env.OTEL_SERVICE_NAME,
    otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT,
    otlpHeaders: env.OTEL_EXPORTER_OTLP_HEADERS,
    sampleRatio: env.OTEL_TRACES_SAMPLER_ARG,
  });
  const http = await listen(
    { port: env.PORT, host: env.HOST },
    {
      headersMs: durationMs(env.HTTP_HEADERS_TIMEOUT),
      requestMs: durationMs(env.HTTP_REQUEST_TIMEOUT),
      keepAliveMs: durationMs(env.HTTP_KEEP_ALIVE_TIMEOUT),
    },
  );
  // PGlite compiles its WebAssembly off the main thread: the database opens while the rest of the
  // service's modules load (a third of the cold start).
  // A directory or database that cannot be opened ends start-up as soon as that is known.
  const [{ startRuntime }, database] = await Promise.all([import("./node-runtime.js"), connectDatabase(databaseOptions(env), logger.warn)]);
  const runtime = await startRuntime(env, { database: Promise.resolve(database), metrics: { text: () => telemetry.metricsText() } }).catch(
    (error: unknown) => {
      http.server.close();
      throw error;
    },
  );
  http.serve(runtime.app.fetch);
  // CLI commands on the same DATA_DIR find the server here and send their work to it.
  await runtime.database.dataDirLock?.advertise(http.url);
  logger.info(`listening on ${http.url}`);

  let stopping = false;
  async function shutdown(signal: "SIGTERM" | "SIGINT") {
    if (stopping) return;
    stopping = true;
    // A balancer in front needs time to see /readyz fail; a person at a terminal (SIGINT) does not.
    const acceptForMs = signal === "SIGTERM" ? durationMs(env.SHUTDOWN_DELAY) : 0;
    logger.info(`${signal}: stopping`, { timeout: env.SHUTDOWN_TIMEOUT, accepting_for_ms: acceptForMs });
    const code = await stopWithin(durationMs(env.SHUTDOWN_TIMEOUT), logger, [
      {
        name: "requests in flight and durable runs",
        run: async () => {
          // Readiness turns 503 at once (both start synchronously); the port stays open for the delay.
          await Promise.all([
            http.drain({ acceptForMs, onStopListening: () => logger.info("no longer accepting connections") }),
            runtime.beginDrain(),
          ]);
        },
        pending: () => {
          const runs = runtime.executor?.describeInFlight() ?? [];
          return `${http.inFlight} requests, ${http.connections} connections, ${runtime.executor?.inFlight ?? 0} durable runs${runs.length > 0 ? `: ${runs.join("; ")}` : ""}`;
        },
      },
      { name: "work after responses and the database", run: () => runtime.close() },
      { name: "the telemetry export", run: () => telemetry.shutdown() },
    ]);
    process.exit(code);
  }
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}

main().catch((error: unknown) => {
  reportStartupFailure(error, process.env);
  // Timers and pools a half-started service left behind must not keep the process alive.
  process.exit(1);
});
