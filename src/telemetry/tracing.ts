import { type Attributes, context, propagation, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { TELEMETRY_SCOPE } from "./scope.js";

/**
 * Whether an SDK records spans in this process (the entry says so when it registers one). Without
 * one every span is a no-op anyway; this lets the hottest paths (one span per SQL statement) skip
 * even the no-op's bookkeeping.
 */
let recording = false;
let current = trace.getTracer(TELEMETRY_SCOPE);

/** Called by the entry as it registers (or removes) an SDK: the tracer is taken anew from it. */
export function setTracingRecorded(value: boolean): void {
  recording = value;
  // A tracer taken from the global provider before `trace.disable()` stays bound to the old one.
  current = trace.getTracer(TELEMETRY_SCOPE);
}

export function tracingRecorded(): boolean {
  return recording;
}

/** The service's tracer, from the SDK registered now (a no-op without one). */
export function tracer() {
  return current;
}

/**
 * Runs `work` in a new active span that ends when it settles; a thrown error is recorded on the
 * span (its name and message: no values) and marks it failed.
 *
 * @example
 * const vectors = await inSpan("embed", { "gen_ai.request.model": model }, () => embedder.embed(texts));
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  return tracer().startActiveSpan(name, { attributes, kind }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : "error" });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** The active trace as a W3C `traceparent`, to be stored with work that continues later (a queued run). */
export function currentTraceparent(): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier["traceparent"];
}

/** Runs `work` inside the trace a stored `traceparent` names (or the current one, without it). */
export function withTraceparent<T>(traceparent: string | null | undefined, work: () => T): T {
  if (!traceparent) return work();
  return context.with(propagation.extract(ROOT_CONTEXT, { traceparent }), work);
}
