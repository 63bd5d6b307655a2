import { type Attributes, type Counter, type Histogram, type Meter, metrics, ValueType } from "@opentelemetry/api";
import { TELEMETRY_SCOPE } from "./scope.js";

/** Seconds: from a fast query to a slow LLM call. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

interface Instruments {
  httpDuration: Histogram;
  providerDuration: Histogram;
  providerTokens: Counter;
  stepDuration: Histogram;
  executorRuns: Counter;
  executorRetries: Counter;
  decayMemories: Counter;
  databaseWait: Histogram;
}

let instruments: Instruments | undefined;

function meter(): Meter {
  return metrics.getMeter(TELEMETRY_SCOPE);
}

/**
 * The instruments, made on first use from the registered MeterProvider: the metrics API has no
 * proxy, so an instrument made before the entry registers its SDK would stay a no-op. The entry
 * registers first; `meterProviderChanged` makes them anew (tests that register one later).
 */
function use(): Instruments {
  instruments ??= create(meter());
  return instruments;
}

export function meterProviderChanged(): void {
  instruments = undefined;
}

function create(m: Meter): Instruments {
  const seconds = (name: string, description: string) =>
    m.createHistogram(name, { description, unit: "s", valueType: ValueType.DOUBLE, advice: { explicitBucketBoundaries: LATENCY_BUCKETS } });
  return {
    httpDuration: seconds("http.server.request.duration", "HTTP requests by route, method and status"),
    providerDuration: seconds("mnemo.provider.duration", "LLM and embedding calls by model and operation"),
    providerTokens: m.createCounter("mnemo.provider.tokens", {
      description: "Tokens sent to and returned by providers",
      valueType: ValueType.INT,
    }),
    stepDuration: seconds("mnemo.pipeline.step.duration", "Durable steps by function and outcome (ok, error)"),
    executorRuns: m.createCounter("mnemo.executor.runs", {
      description: "Runs the embedded executor finished, by function and status",
      valueType: ValueType.INT,
    }),
    executorRetries: m.createCounter("mnemo.executor.retries", {
      description: "Runs the embedded executor sent back to wait for a retry",
      valueType: ValueType.INT,
    }),
    decayMemories: m.createCounter("mnemo.decay.memories", {
      description: "Memories scheduled decay recomputed, forgot, purged…",
      valueType: ValueType.INT,
    }),
    databaseWait: m.createHistogram("mnemo.database.queue.wait", {
      description: "Time a statement or transaction waited for the embedded database's one connection, by work (request, background)",
      unit: "s",
      valueType: ValueType.DOUBLE,
      advice: { explicitBucketBoundaries: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] },
    }),
  };
}

export function recordHttpRequest(seconds: number, attributes: { method: string; route: string; status: number }): void {
  use().httpDuration.record(seconds, {
    "http.request.method": attributes.method,
    "http.route": attributes.route,
    "http.response.status_code": attributes.status,
  });
}

export function recordProviderCall(seconds: number, attributes: { model: string; operation: string; outcome: "ok" | "error" }): void {
  use().providerDuration.record(seconds, attributes);
}

export function recordProviderTokens(
  tokens: { input: number; output: number },
  attributes: { model: string; provider: string; stage: string },
): void {
  const counter = use().providerTokens;
  if (tokens.input > 0) counter.add(tokens.input, { ...attributes, direction: "input" });
  if (tokens.output > 0) counter.add(tokens.output, { ...attributes, direction: "output" });
}

export function recordStep(seconds: number, attributes: { function: string; outcome: "ok" | "error" }): void {
  use().stepDuration.record(seconds, attributes);
}

export function recordExecutorRun(attributes: { function: string; status: "completed" | "failed" | "cancelled" }): void {
  use().executorRuns.add(1, attributes);
}

export function recordExecutorRetry(attributes: { function: string }): void {
  use().executorRetries.add(1, attributes);
}

/**
 * The embedded executor's counters at zero for each of its functions (runs completed and failed,
 * retries), so their series exist from start-up: a series that first appears at its first event
 * hides that event from `rate()` and `increase()`, and an absent series reads as "no data", not 0.
 *
 * @example
 * startExecutorCounters(["mnemo-fast-replay", "mnemo-decay"]);
 */
export function startExecutorCounters(functionIds: Iterable<string>): void {
  const { executorRuns, executorRetries } = use();
  for (const id of functionIds) {
    for (const status of ["completed", "failed"] as const) executorRuns.add(0, { function: id, status });
    executorRetries.add(0, { function: id });
  }
}

export function recordDatabaseWait(seconds: number, work: "request" | "background"): void {
  use().databaseWait.record(seconds, { work });
}

/** What scheduled decay counts (`mnemo_decay_memories_total{outcome}`). */
export const DECAY_OUTCOMES = ["recomputed", "forgotten", "over_quota", "traits_dissolved", "purged"] as const;
export type DecayOutcome = (typeof DECAY_OUTCOMES)[number];

export function recordDecay(counts: Partial<Record<DecayOutcome, number>>): void {
  for (const [outcome, count] of Object.entries(counts)) if (count > 0) use().decayMemories.add(count, { outcome });
}

/** The decay counter at zero for every outcome, so its series exist from start-up (see `startExecutorCounters`). */
export function startDecayCounter(): void {
  for (const outcome of DECAY_OUTCOMES) use().decayMemories.add(0, { outcome });
}

/** One reading of a gauge: a value and the labels that tell it from the gauge's other readings. */
export interface GaugeReading {
  value: number;
  attributes?: Attributes;
}

/**
 * A gauge read when metrics are collected (a scrape of `/metrics`), from `read`; returns the
 * function that stops it. A read that throws (the database is down) leaves the gauge out of that
 * scrape instead of failing the others.
 *
 * @example
 * const stop = registerGauge(
 *   { name: "mnemo.embedded.xid_age", description: "age(datfrozenxid) of the embedded database" },
 *   async () => [{ value: await xidAge(db) }],
 * );
 */
export function registerGauge(
  spec: { name: string; description: string; unit?: string },
  read: () => GaugeReading[] | Promise<GaugeReading[]>,
): () => void {
  const gauge = meter().createObservableGauge(spec.name, {
    description: spec.description,
    ...(spec.unit ? { unit: spec.unit } : {}),
    valueType: ValueType.DOUBLE,
  });
  const callback = async (result: { observe(value: number, attributes?: Attributes): void }) => {
    let readings: GaugeReading[];
    try {
      readings = await read();
    } catch {
      return;
    }
    for (const reading of readings) result.observe(reading.value, reading.attributes);
  };
  gauge.addCallback(callback);
  return () => gauge.removeCallback(callback);
}
