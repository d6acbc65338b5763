// OpenTelemetry tracing (issue 58): off unless OTEL_EXPORTER_OTLP_ENDPOINT (or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set. Spans go to the endpoint as OTLP/HTTP, protobuf bodies
// by default (otlp-protobuf.ts; decision 0150) or JSON ones with OTEL_EXPORTER_OTLP_PROTOCOL=http/json
// (opentelemetry-proto's JSON mapping; decision 0114),
// sampled by OTEL_TRACES_SAMPLER (and OTEL_TRACES_SAMPLER_ARG), named by OTEL_SERVICE_NAME.
//
// An unreachable or slow endpoint never slows or fails a paid call (decision 0101): a finished span
// is pushed onto a bounded queue (no await, no I/O); a timer exports it in batches, one export at a
// time, each with a deadline; a span that finds the queue full, and every span of an export that
// fails, is dropped and counted (tollbooth_trace_spans_dropped_total).
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AttributeValue } from '@opentelemetry/api';
import type { Config } from '../platform/config.ts';
import type { Metrics } from '../platform/metrics.ts';
import { createTracing, type RecordedSpan, type SpanSink, type Tracing } from '../platform/tracing.ts';
import { appendSpanField, protobufHead } from './otlp-protobuf.ts';

// A batch is an export: 2,048 spans (~400 calls) make one HTTP request (512 cost ~2 µs a call in
// the request's own work, bench/README.md "Observability cost"); the queue holds four of them.
const QUEUE_SPANS = 8192;
const BATCH_SPANS = 2048;
/** A batch's bytes at most (its spans' JSON, outside V8's heap). */
const BATCH_BYTES = 1024 * 1024;
const EXPORT_EVERY_MS = 1000;
const EXPORT_TIMEOUT_MS = 5000;
/** At most this much of an export's answer is read (its body is not used). */
const ANSWER_BYTES = 64 * 1024;

export interface StartedTracing {
  tracing: Tracing;
  /** Exports what is queued (waits at most the export deadline), then stops. */
  shutdown(): Promise<void>;
  /** Exports what is queued now (tests). */
  flush(): Promise<void>;
}

/** Sends one batch (its spans in the export format); resolves whether the receiver took it, after which the buffer is reused. Never rejects. */
export type SpanExport = (spans: Buffer) => Promise<boolean>;

/**
 * OTEL_TRACES_SAMPLER's decision for a trace: `parentSampled` is the caller's flag (null when the
 * trace starts here). The ratio sampler reads the trace id's last 32 bits (its last 8 hex digits),
 * so every process decides a trace alike.
 */
export function samplerOf(name: string, ratio: number): (traceIdLow: number, parentSampled: boolean | null) => boolean {
  const byRatio = (traceIdLow: number) => ratio >= 1 || traceIdLow / 0x1_0000_0000 < ratio;
  switch (name) {
    case 'always_on':
      return () => true;
    case 'always_off':
      return () => false;
    case 'traceidratio':
      return byRatio;
    case 'parentbased_always_off':
      return (_traceIdLow, parentSampled) => parentSampled === true;
    case 'parentbased_traceidratio':
      return (traceIdLow, parentSampled) => parentSampled ?? byRatio(traceIdLow);
    default:
      return (_traceIdLow, parentSampled) => parentSampled ?? true;
  }
}

/** How spans are written into a batch and sent: OTLP/HTTP's protobuf (the default) or its JSON mapping. */
export interface SpanFormat {
  contentType: string;
  /**
   * Appends a span at `offset` of `batch` (`first`: the batch's first span); answers the batch's new
   * end, -1 when the span does not fit in what is left, null when it would fit in no batch.
   */
  append(span: RecordedSpan, batch: Buffer, offset: number, first: boolean): number | null;
  /** An export request's body around a batch's spans, in parts (written one after the other, not copied into one). */
  body(spans: Buffer): Buffer[];
}

/** OTLP/HTTP protobuf (Content-Type application/x-protobuf; otlp-protobuf.ts). */
export function protobufFormat(serviceName: string): SpanFormat {
  const head = protobufHead(serviceName);
  return {
    contentType: 'application/x-protobuf',
    append: (span, batch, offset) => appendSpanField(batch, offset, span),
    body: (spans) => [head(spans.length), spans],
  };
}

/** OTLP/HTTP JSON (opentelemetry-proto's JSON mapping; OTEL_EXPORTER_OTLP_PROTOCOL=http/json). */
export function jsonFormat(serviceName: string): SpanFormat {
  const [head, tail] = envelope(serviceName);
  return {
    contentType: 'application/json',
    append(span, batch, offset, first) {
      const text = spanJson(span);
      const bytes = Buffer.byteLength(text) + (first ? 0 : 1);
      if (bytes > BATCH_BYTES) return null;
      if (offset + bytes > batch.length) return -1;
      if (!first) batch[offset++] = 0x2c; // ','
      return offset + batch.write(text, offset);
    },
    body: (spans) => [head, spans, tail],
  };
}

/**
 * The bounded queue: a span is written in its export format when it ends, into a batch buffer
 * outside V8's heap, so the span object dies young (ended spans kept as objects until their export
 * survived scavenges into the old generation: most of what tracing cost a paid call). A timer (or a
 * full batch) exports them, one export at a time.
 */
export function createSpanQueue(send: SpanExport, onDropped: (count: number) => void, format: SpanFormat) {
  type Batch = { buffer: Buffer; used: number; spans: number };
  // Batch buffers come back once exported (allocating a batch outside the heap per batch of spans made
  // V8 count external memory and collect sooner); at most the queue's worth are kept.
  const spare: Buffer[] = [];
  const newBatch = (): Batch => ({ buffer: spare.pop() ?? Buffer.allocUnsafe(BATCH_BYTES), used: 0, spans: 0 });
  const full: Batch[] = [];
  let current = newBatch();
  let queued = 0;
  let exporting: Promise<void> | null = null;
  let stopped = false;

  const exportBatch = (): Promise<void> => {
    if (exporting) return exporting;
    let batch = full.shift();
    if (!batch) {
      if (current.spans === 0) return Promise.resolve();
      batch = current;
      current = newBatch();
    }
    const sent = batch;
    const running = send(sent.buffer.subarray(0, sent.used)).then((ok) => {
      queued -= sent.spans;
      if (spare.length < QUEUE_SPANS / BATCH_SPANS) spare.push(sent.buffer);
      if (!ok) onDropped(sent.spans);
      exporting = null;
    });
    exporting = running;
    return running;
  };
  const timer = setInterval(() => void exportBatch(), EXPORT_EVERY_MS);
  timer.unref();
  const nextBatch = () => {
    full.push(current);
    current = newBatch();
  };

  return {
    ended(span: RecordedSpan) {
      if (stopped) return;
      if (queued >= QUEUE_SPANS) {
        onDropped(1);
        return;
      }
      if (current.spans >= BATCH_SPANS) nextBatch();
      let end = format.append(span, current.buffer, current.used, current.spans === 0);
      if (end === -1 && current.spans > 0) {
        nextBatch();
        end = format.append(span, current.buffer, 0, true);
      }
      if (end === null || end < 0) {
        onDropped(1);
        return;
      }
      current.used = end;
      current.spans++;
      queued++;
      if (full.length > 0 && !exporting) setImmediate(() => void exportBatch());
    },
    async flush() {
      if (exporting) await exporting;
      while (full.length > 0 || current.spans > 0) await exportBatch();
    },
    async shutdown() {
      clearInterval(timer);
      await this.flush();
      stopped = true;
    },
  };
}

/** One attribute's OTLP JSON AnyValue (64-bit integers as strings, as OTLP's JSON mapping has them). */
function otlpValue(value: AttributeValue): string {
  switch (typeof value) {
    case 'string':
      return `{"stringValue":${JSON.stringify(value)}}`;
    case 'boolean':
      return value ? '{"boolValue":true}' : '{"boolValue":false}';
    case 'number':
      return Number.isInteger(value) ? `{"intValue":"${value}"}` : Number.isFinite(value) ? `{"doubleValue":${value}}` : `{"stringValue":"${value}"}`;
    default: {
      const values = (value as unknown[]).filter((item) => item !== null && item !== undefined).map((item) => otlpValue(item as AttributeValue));
      return `{"arrayValue":{"values":[${values.join(',')}]}}`;
    }
  }
}

/** Epoch milliseconds (with a fraction) as OTLP's unsigned nanoseconds, a decimal string, to the microsecond (2^53 µs is year 2255). */
function nanosOf(ms: number): string {
  return `${Math.round(ms * 1000)}000`;
}

// The attribute keys and span names repeat from span to span: their JSON is made once (a bounded cache).
const KEY_PREFIXES = new Map<string, string>();
const NAMES = new Map<string, string>();
const CACHED = 1000;
function keyPrefix(key: string): string {
  let prefix = KEY_PREFIXES.get(key);
  if (prefix === undefined) {
    prefix = `{"key":${JSON.stringify(key)},"value":`;
    if (KEY_PREFIXES.size < CACHED) KEY_PREFIXES.set(key, prefix);
  }
  return prefix;
}
function jsonName(name: string): string {
  let json = NAMES.get(name);
  if (json === undefined) {
    json = JSON.stringify(name);
    if (NAMES.size < CACHED) NAMES.set(name, json);
  }
  return json;
}

/** One span in OTLP's JSON mapping (ids in hex, enums as numbers, 64-bit integers as strings), written as text. */
export function spanJson(span: RecordedSpan): string {
  let attributes = '';
  const list = span.attributeList;
  for (let i = 0; i < list.length; i += 2) {
    const value = list[i + 1];
    if (value === undefined || value === null) continue;
    attributes += `${attributes ? ',' : ''}${keyPrefix(list[i] as string)}${otlpValue(value)}}`;
  }
  const status = span.status.message ? `{"code":${span.status.code},"message":${JSON.stringify(span.status.message)}}` : `{"code":${span.status.code}}`;
  return `{"traceId":"${span.traceId}","spanId":"${span.spanId}"${span.parentSpanId ? `,"parentSpanId":"${span.parentSpanId}"` : ''}${
    span.traceState ? `,"traceState":${JSON.stringify(span.traceState)}` : ''
  },"name":${jsonName(span.name)},"kind":${
    // OTLP's SpanKind counts from UNSPECIFIED = 0; the API's from INTERNAL = 0.
    span.kind + 1
  },"startTimeUnixNano":"${nanosOf(span.startMs)}","endTimeUnixNano":"${nanosOf(span.endMs)}","attributes":[${attributes}],"status":${status}}`;
}

/** The ExportTraceServiceRequest around a batch of spans' JSON. */
function envelope(serviceName: string): [Buffer, Buffer] {
  return [
    Buffer.from(
      `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":${JSON.stringify(serviceName)}}}]},"scopeSpans":[{"scope":{"name":"tollbooth"},"spans":[`,
    ),
    Buffer.from(']}]}]}'),
  ];
}

/** A whole ExportTraceServiceRequest of these spans (tests). */
export function otlpJson(spans: RecordedSpan[], serviceName: string): string {
  const [head, tail] = envelope(serviceName);
  return `${head.toString()}${spans.map(spanJson).join(',')}${tail.toString()}`;
}

/** POSTs batches to the OTLP/HTTP traces URL, each within EXPORT_TIMEOUT_MS; a 2xx is taken. */
export function otlpHttpExport(url: string, headers: Record<string, string>, format: SpanFormat): SpanExport {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return (spans) =>
    new Promise<boolean>((resolve) => {
      const body = format.body(spans);
      const length = body.reduce((sum, part) => sum + part.length, 0);
      const request = send(
        target,
        {
          method: 'POST',
          headers: { ...headers, 'content-type': format.contentType, 'content-length': length },
          timeout: EXPORT_TIMEOUT_MS,
        },
        (response) => {
          let read = 0;
          response.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > ANSWER_BYTES) response.destroy();
          });
          response.on('close', () => resolve((response.statusCode ?? 0) >= 200 && (response.statusCode ?? 0) < 300));
        },
      );
      const deadline = setTimeout(() => request.destroy(new Error('OTLP export timed out')), EXPORT_TIMEOUT_MS);
      deadline.unref();
      request.on('close', () => clearTimeout(deadline));
      request.on('timeout', () => request.destroy(new Error('OTLP export timed out')));
      request.on('error', () => resolve(false));
      for (const part of body.slice(0, -1)) request.write(part);
      request.end(body.at(-1));
    });
}

/** Starts tracing when the configuration has an OTLP endpoint; null when tracing is off. */
export function startTracing(config: Config, metrics: Metrics | null): StartedTracing | null {
  const settings = config.tracing;
  if (settings.tracesUrl === null) return null;
  const format = settings.protocol === 'http/json' ? jsonFormat(settings.serviceName) : protobufFormat(settings.serviceName);
  const queue = createSpanQueue(otlpHttpExport(settings.tracesUrl, settings.headers, format), (count) => metrics?.droppedSpans(count), format);
  const sink: SpanSink = { sample: samplerOf(settings.sampler, settings.samplerRatio), ended: (span) => queue.ended(span) };
  return {
    tracing: createTracing(sink),
    flush: () => queue.flush(),
    shutdown: () => queue.shutdown(),
  };
}
