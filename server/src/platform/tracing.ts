// A paid call's trace (issue 58), as the layers that make it see it: null when tracing is off
// (OTEL_EXPORTER_OTLP_ENDPOINT unset), so an untraced call pays one null check per step. When on,
// observability/tracing.ts gives the sampler of OTEL_TRACES_SAMPLER and where ended spans go (a
// bounded queue, exported as OTLP/HTTP). The spans are Tollbooth's own small implementation of
// @opentelemetry/api's Span, their parent passed by hand (no context manager, no AsyncLocalStorage,
// no Context objects on the call's path): the SDK's spans and exporter cost a traced call about
// 60 µs of CPU, most of a 10 % budget, and these a few (decision 0114, bench/README.md).
//
// Names and attributes follow OpenTelemetry's GenAI semantic conventions where they apply: the
// upstream call's span is "{gen_ai.operation.name} {gen_ai.request.model}" of kind CLIENT with
// gen_ai.* attributes; Tollbooth's own (price, outcome, app kind, path) are under tollbooth.*.
import { randomFillSync } from 'node:crypto';
import type { Attributes, AttributeValue, Exception, Link, Span, SpanContext, SpanStatus, TimeInput } from '@opentelemetry/api';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { FastifyRequest } from 'fastify';

export type { Span } from '@opentelemetry/api';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's server span when tracing is on (null otherwise); a paid call's spans are its children (observability/observe.ts). */
    callSpan: Span | null;
  }
}

export interface Tracing {
  /** Starts the server span of a request, continuing the caller's W3C traceparent (and tracestate). */
  startRequest(name: string, headers: Record<string, string | string[] | undefined>): Span;
  /** A child span of `parent`. */
  child(parent: Span, name: string, attributes?: Attributes, kind?: SpanKind): Span;
  /** The traceparent header value that makes `span` the parent of the upstream's work. */
  traceparentOf(span: Span): string | undefined;
}

/** Where sampled spans go once ended, and whether a new trace is sampled. */
export interface SpanSink {
  /** Whether a trace is recorded: `parentSampled` is the caller's flag, null for a new trace. */
  sample(traceId: string, parentSampled: boolean | null): boolean;
  /** A sampled span has ended (called once per span). */
  ended(span: RecordedSpan): void;
}

/** What an exporter reads of an ended span. */
export interface RecordedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root. */
  readonly parentSpanId: string;
  readonly traceState: string | undefined;
  readonly name: string;
  readonly kind: SpanKind;
  /** Epoch milliseconds, with the fraction performance.now() gives. */
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: Record<string, AttributeValue>;
  readonly status: SpanStatus;
}

// Span and trace ids sliced from a pool of random hex digits, 8 KiB of them made at a time (one
// hex conversion per ~170 calls instead of one per id).
const POOL = Buffer.alloc(4096);
let hexPool = '';
let poolAt = 0;
function randomHex(bytes: 8 | 16): string {
  const digits = bytes * 2;
  for (;;) {
    if (poolAt + digits > hexPool.length) {
      randomFillSync(POOL);
      hexPool = POOL.toString('hex');
      poolAt = 0;
    }
    const hex = hexPool.slice(poolAt, poolAt + digits);
    poolAt += digits;
    // All zeroes is an invalid id (W3C Trace Context); one in 2^64 draws.
    if (hex.charCodeAt(0) !== 0x30 || !/^0+$/.test(hex)) return hex;
  }
}

const nowMs = () => performance.timeOrigin + performance.now();

/** One span. Not sampled, it still carries its ids (the traceparent sent upstream) and records nothing. */
class LeanSpan implements Span, RecordedSpan {
  readonly attributes: Record<string, AttributeValue> = {};
  status: SpanStatus = { code: SpanStatusCode.UNSET };
  endMs = 0;
  readonly startMs = nowMs();
  readonly #context: SpanContext;
  #ended = false;

  constructor(
    readonly sink: SpanSink,
    readonly traceId: string,
    readonly spanId: string,
    readonly parentSpanId: string,
    readonly traceState: string | undefined,
    public name: string,
    readonly kind: SpanKind,
    readonly sampled: boolean,
  ) {
    this.#context = { traceId, spanId, traceFlags: sampled ? 1 : 0 };
  }

  spanContext(): SpanContext {
    return this.#context;
  }
  setAttribute(key: string, value: AttributeValue): this {
    if (this.sampled && !this.#ended && value !== undefined) this.attributes[key] = value;
    return this;
  }
  setAttributes(attributes: Attributes): this {
    for (const key in attributes) this.setAttribute(key, attributes[key]!);
    return this;
  }
  addEvent(): this {
    return this;
  }
  addLink(_link: Link): this {
    return this;
  }
  addLinks(_links: Link[]): this {
    return this;
  }
  setStatus(status: SpanStatus): this {
    if (!this.#ended) this.status = status;
    return this;
  }
  updateName(name: string): this {
    if (!this.#ended) this.name = name;
    return this;
  }
  end(_endTime?: TimeInput): void {
    if (this.#ended) return;
    this.#ended = true;
    this.endMs = nowMs();
    if (this.sampled) this.sink.ended(this);
  }
  isRecording(): boolean {
    return this.sampled && !this.#ended;
  }
  recordException(exception: Exception): void {
    if (typeof exception === 'object' && exception !== null && 'name' in exception) this.setAttribute('exception.type', String(exception.name));
  }
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;

/** The caller's W3C traceparent, when it is a valid one (version ff and all-zero ids are not). */
function parentOf(header: string | string[] | undefined): { traceId: string; spanId: string; sampled: boolean } | null {
  if (typeof header !== 'string') return null;
  const match = TRACEPARENT.exec(header.trim());
  if (!match || match[1] === 'ff' || /^0+$/.test(match[2]!) || /^0+$/.test(match[3]!)) return null;
  // Version 00 has exactly four fields; a later version may add some (W3C Trace Context, 3.2.4).
  if (match[1] === '00' && header.trim().length !== 55) return null;
  return { traceId: match[2]!, spanId: match[3]!, sampled: (Number.parseInt(match[4]!, 16) & 1) === 1 };
}

export function createTracing(sink: SpanSink): Tracing {
  return {
    startRequest(name, headers) {
      const parent = parentOf(headers.traceparent);
      const traceId = parent?.traceId ?? randomHex(16);
      const sampled = sink.sample(traceId, parent ? parent.sampled : null);
      const state = parent && typeof headers.tracestate === 'string' ? headers.tracestate : undefined;
      return new LeanSpan(sink, traceId, randomHex(8), parent?.spanId ?? '', state, name, SpanKind.SERVER, sampled);
    },
    child(parent, name, attributes, kind = SpanKind.INTERNAL) {
      const context = parent.spanContext();
      const state = parent instanceof LeanSpan ? parent.traceState : undefined;
      const span = new LeanSpan(sink, context.traceId, randomHex(8), context.spanId, state, name, kind, (context.traceFlags & 1) === 1);
      if (attributes) span.setAttributes(attributes);
      return span;
    },
    traceparentOf(span) {
      const context = span.spanContext();
      return `00-${context.traceId}-${context.spanId}-0${context.traceFlags & 1}`;
    },
  };
}

/** Ends a span as failed, with the error's type (error.type, as the conventions name it). */
export function endFailed(span: Span, errorType: string, message?: string): void {
  span.setAttribute('error.type', errorType);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.end();
}

/**
 * Ends the server span of a streamed answer whose caller hung up before it was written in full:
 * Fastify's onResponse never runs for it. Status 499 (the caller closed the request, as nginx names
 * it) and error.type client_closed. A stream that finished is left to onResponse.
 */
export function endAbandonedSpan(request: FastifyRequest, finished: boolean): void {
  const span = request.callSpan;
  if (!span || finished) return;
  request.callSpan = null;
  span.setAttribute('http.response.status_code', 499);
  endFailed(span, 'client_closed');
}
