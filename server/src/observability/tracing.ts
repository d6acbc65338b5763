// OpenTelemetry tracing (issue 58): off unless OTEL_EXPORTER_OTLP_ENDPOINT (or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set. Spans go to the endpoint as OTLP/HTTP protobuf,
// sampled by OTEL_TRACES_SAMPLER (and OTEL_TRACES_SAMPLER_ARG), named by OTEL_SERVICE_NAME.
//
// An unreachable or slow endpoint never slows or fails a paid call (decision 0101): a finished span
// is pushed onto a bounded queue (no await, no I/O); a timer exports it in batches, one export at a
// time, each with a deadline; a span that finds the queue full, and every span of an export that
// fails, is dropped and counted (tollbooth_trace_spans_dropped_total).
import { ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  ParentBasedSampler,
  type ReadableSpan,
  type Sampler,
  type SpanExporter,
  type SpanProcessor,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import type { Config } from '../platform/config.ts';
import type { Metrics } from '../platform/metrics.ts';
import { createTracing, type Tracing } from '../platform/tracing.ts';

const QUEUE_SPANS = 4096;
const BATCH_SPANS = 512;
const EXPORT_EVERY_MS = 1000;
const EXPORT_TIMEOUT_MS = 5000;

export interface StartedTracing {
  tracing: Tracing;
  /** Exports what is queued (waits at most the export deadline), then stops. */
  shutdown(): Promise<void>;
  /** Exports what is queued now (tests). */
  flush(): Promise<void>;
}

export function samplerOf(name: string, ratio: number): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** A span processor whose onEnd only pushes onto a bounded queue; a timer exports. */
export function createBoundedSpanProcessor(exporter: SpanExporter, onDropped: (count: number) => void): SpanProcessor & { flushNow(): Promise<void> } {
  let queue: ReadableSpan[] = [];
  let exporting: Promise<void> | null = null;
  let stopped = false;

  const exportBatch = (): Promise<void> => {
    if (exporting || queue.length === 0) return exporting ?? Promise.resolve();
    const batch = queue.length <= BATCH_SPANS ? queue : queue.slice(0, BATCH_SPANS);
    queue = batch === queue ? [] : queue.slice(BATCH_SPANS);
    exporting = new Promise<void>((resolve) => {
      let done = false;
      const finish = (ok: boolean) => {
        if (done) return;
        done = true;
        clearTimeout(deadline);
        if (!ok) onDropped(batch.length);
        exporting = null;
        resolve();
      };
      const deadline = setTimeout(() => finish(false), EXPORT_TIMEOUT_MS);
      deadline.unref();
      try {
        exporter.export(batch, (result) => finish(result.code === ExportResultCode.SUCCESS));
      } catch {
        finish(false);
      }
    });
    return exporting;
  };
  const timer = setInterval(() => void exportBatch(), EXPORT_EVERY_MS);
  timer.unref();

  return {
    onStart() {},
    onEnd(span) {
      if (stopped || (span.spanContext().traceFlags & 1) === 0) return;
      if (queue.length >= QUEUE_SPANS) {
        onDropped(1);
        return;
      }
      queue.push(span);
      if (queue.length >= BATCH_SPANS && !exporting) setImmediate(() => void exportBatch());
    },
    async forceFlush() {
      await this.flushNow();
    },
    async flushNow() {
      if (exporting) await exporting;
      while (queue.length > 0) await exportBatch();
    },
    async shutdown() {
      clearInterval(timer);
      await this.flushNow();
      stopped = true;
      await exporter.shutdown();
    },
  };
}

/** Starts tracing when the configuration has an OTLP endpoint; null when tracing is off. */
export function startTracing(config: Config, metrics: Metrics | null): StartedTracing | null {
  const settings = config.tracing;
  if (settings.tracesUrl === null) return null;
  const exporter = new OTLPTraceExporter({ url: settings.tracesUrl, headers: settings.headers, timeoutMillis: EXPORT_TIMEOUT_MS, concurrencyLimit: 1 });
  const processor = createBoundedSpanProcessor(exporter, (count) => metrics?.droppedSpans(count));
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.serviceName }),
    sampler: samplerOf(settings.sampler, settings.samplerRatio),
    spanProcessors: [processor],
  });
  const tracing = createTracing(provider.getTracer('tollbooth'), new W3CTraceContextPropagator());
  return {
    tracing,
    flush: () => processor.flushNow(),
    shutdown: () => provider.shutdown(),
  };
}
