import { context, metrics, propagation, trace } from "@opentelemetry/api";
import { PrometheusExporter, PrometheusSerializer } from "@opentelemetry/exporter-prometheus";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import {
  BatchSpanProcessor,
  ParentBasedSampler,
  SimpleSpanProcessor,
  type SpanExporter,
  TraceIdRatioBasedSampler,
} from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { meterProviderChanged } from "./metrics.js";
import { setTracingRecorded } from "./tracing.js";

export interface NodeTelemetryOptions {
  /** `service.name` of every span and the metrics' target (OTEL_SERVICE_NAME). */
  serviceName: string;
  serviceVersion?: string;
  /** OTLP/HTTP base URL (OTEL_EXPORTER_OTLP_ENDPOINT): spans go to `<endpoint>/v1/traces`. Unset: no tracing at all. */
  otlpEndpoint?: string | undefined;
  /** Headers of every export, e.g. an API key of the collector (OTEL_EXPORTER_OTLP_HEADERS, parsed). */
  otlpHeaders?: Record<string, string>;
  /** Share of new traces sampled, 0-1 (OTEL_TRACES_SAMPLER_ARG); a sampled parent's children always are. */
  sampleRatio?: number;
  /** Where spans go instead of OTLP (tests read them from memory, the bench drops them). */
  spanExporter?: SpanExporter;
  /** Export each span as it ends (tests: in memory at once) instead of in batches as OTLP does; default true with `spanExporter`. */
  exportEachSpan?: boolean;
}

/** The SDK as registered: the Prometheus text of every metric, and a flush-and-stop. */
export interface NodeTelemetry {
  /** Prometheus text exposition format (version 0.0.4) of every instrument and gauge. */
  metricsText(): Promise<string>;
  /** Exports the spans still buffered and stops the providers. */
  shutdown(): Promise<void>;
}

/**
 * Registers OpenTelemetry's SDK for the process: always a MeterProvider read by `/metrics` (no
 * server of its own); a TracerProvider only when spans have somewhere to go (an OTLP endpoint, or
 * a test's exporter), so tracing costs nothing when it is not configured. The code that records
 * uses `@opentelemetry/api` only (`src/telemetry/`).
 *
 * @example
 * const telemetry = startNodeTelemetry({ serviceName: "mnemo-pipeline", otlpEndpoint: "http://collector:4318" });
 */
export function startNodeTelemetry(options: NodeTelemetryOptions): NodeTelemetry {
  const resource = resourceFromAttributes({
    "service.name": options.serviceName,
    ...(options.serviceVersion ? { "service.version": options.serviceVersion } : {}),
  });
  const prometheus = new PrometheusExporter({ preventServerStart: true });
  const meterProvider = new MeterProvider({ resource, readers: [prometheus] });
  metrics.setGlobalMeterProvider(meterProvider);
  meterProviderChanged();
  const serializer = new PrometheusSerializer("", false, undefined, false, true);

  const exporter =
    options.spanExporter ??
    (options.otlpEndpoint
      ? new OTLPTraceExporter({ url: `${options.otlpEndpoint.replace(/\/$/, "")}/v1/traces`, headers: options.otlpHeaders ?? {} })
      : undefined);
  let tracerProvider: NodeTracerProvider | undefined;
  if (exporter) {
    tracerProvider = new NodeTracerProvider({
      resource,
      sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(options.sampleRatio ?? 1) }),
      spanProcessors: [
        options.spanExporter && (options.exportEachSpan ?? true) ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporter),
      ],
    });
    // The AsyncLocalStorage context manager and the W3C trace-context propagator, process-wide.
    tracerProvider.register();
    setTracingRecorded(true);
  }

  return {
    async metricsText() {
      const { resourceMetrics } = await prometheus.collect();
      return serializer.serialize(resourceMetrics);
    },
    async shutdown() {
      setTracingRecorded(false);
      await Promise.allSettled([tracerProvider?.shutdown(), meterProvider.shutdown()]);
      trace.disable();
      context.disable();
      propagation.disable();
      metrics.disable();
      setTracingRecorded(false);
      meterProviderChanged();
    },
  };
}
