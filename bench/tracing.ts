import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import type { Runtime } from "../functions/node-runtime.js";
import { startNodeTelemetry } from "../src/telemetry/node-sdk.js";
import { seedMemories } from "./retrieval.js";
import { type Summary, summarize, time } from "./stats.js";

const json = { "content-type": "application/json" };

/** An exporter that drops what it is given, counting it: the SDK's whole cost, no collector's. */
class DroppingExporter implements SpanExporter {
  spans = 0;
  export(spans: ReadableSpan[], done: (result: { code: number }) => void): void {
    this.spans += spans.length;
    done({ code: 0 });
  }
  async shutdown(): Promise<void> {}
}

export interface TracingReport {
  memories: number;
  untraced: Summary;
  traced: Summary;
  /** traced p50 / untraced p50. */
  ratio: number;
  spansPerRequest: number;
}

/**
 * The cost of tracing on the context path: context windows for one user, in alternating rounds
 * without any SDK (as when OTEL_EXPORTER_OTLP_ENDPOINT is unset) and with the SDK recording every
 * span (batched, as to a collector, then dropped), so both modes meet the same machine load.
 */
export async function benchTracing(runtime: Runtime, memories: number, rounds = 6, perRound = 25): Promise<TracingReport> {
  const userId = `bench-tracing-${memories}`;
  await seedMemories(runtime, userId, memories, runtime.providers.embedder.model);
  let request = 0;
  const context = () =>
    time(async () => {
      const body = JSON.stringify({ user_id: userId, query: `What did we say about the garden? (#${request++})`, max_tokens: 2000 });
      const response = await runtime.app.request("/v1/context", { method: "POST", headers: json, body });
      if (response.status !== 200) throw new Error(`context failed: ${await response.text()}`);
    });
  for (let i = 0; i < 5; i++) await context(); // warm-up: the user's memories loaded, plans cached
  const samples = { untraced: [] as number[], traced: [] as number[] };
  const exporter = new DroppingExporter();
  for (let round = 0; round < rounds; round++) {
    for (const mode of round % 2 === 0 ? (["untraced", "traced"] as const) : (["traced", "untraced"] as const)) {
      const telemetry =
        mode === "traced" ? startNodeTelemetry({ serviceName: "bench", spanExporter: exporter, exportEachSpan: false }) : undefined;
      for (let i = 0; i < perRound; i++) samples[mode].push(await context());
      await telemetry?.shutdown();
    }
  }
  const untraced = summarize("context window, no tracing SDK", samples.untraced);
  const traced = summarize("context window, every span recorded", samples.traced);
  return { memories, untraced, traced, ratio: traced.p50 / untraced.p50, spansPerRequest: exporter.spans / samples.traced.length };
}
