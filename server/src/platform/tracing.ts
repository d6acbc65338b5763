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
  /** Whether a trace is recorded, by its id's last 32 bits: `parentSampled` is the caller's flag, null for a new trace. */
  sample(traceIdLow: number, parentSampled: boolean | null): boolean;
  /** A sampled span has ended (called once per span). */
  ended(span: RecordedSpan): void;
}

/** What an exporter reads of an ended span (a LeanSpan's public shape). */
export interface RecordedSpan {
  /** The ids in hex (made when read: the exporters write the words below). */
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root. */
  readonly parentSpanId: string;
  /** The trace id as four and the span ids as two unsigned 32-bit words, most significant first; a root's parent is 0, 0. */
  readonly t0: number;
  readonly t1: number;
  readonly t2: number;
  readonly t3: number;
  readonly s0: number;
  readonly s1: number;
  readonly p0: number;
  readonly p1: number;
  readonly traceState: string | undefined;
  readonly name: string;
  readonly kind: SpanKind;
  /** Epoch milliseconds, with the fraction performance.now() gives. */
  readonly startMs: number;
  readonly endMs: number;
  /** Keys and values in turn, each key once, in the order first set (what the exporters read). */
  readonly attributeList: readonly (string | AttributeValue)[];
  /** The same as a record (tests; made when read). */
  readonly attributes: Record<string, AttributeValue>;
  readonly status: SpanStatus;
}

// Ids are drawn as 32-bit words from a pool of random ones (one randomFillSync per ~1,000 calls) and kept
// as numbers: the exporters write their bytes, and the hex of W3C's traceparent and the logs is made
// only where one is read (a hex string per id, and its bytes again at export, were the largest part
// of a traced call's CPU profile after the spans' encoding).
const POOL = new Uint32Array(16 * 1024);
let poolAt = POOL.length;
function randomWord(): number {
  if (poolAt === POOL.length) {
    randomFillSync(POOL);
    poolAt = 0;
  }
  return POOL[poolAt++]!;
}

/** Each byte's two hex digits: a word's hex by four look-ups (Number#toString(16) is a runtime call of ~300 ns). */
const BYTE_HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
const hexWord = (word: number) => BYTE_HEX[word >>> 24]! + BYTE_HEX[(word >>> 16) & 0xff]! + BYTE_HEX[(word >>> 8) & 0xff]! + BYTE_HEX[word & 0xff]!;

const nowMs = () => performance.timeOrigin + performance.now();

const UNSET: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });

/** One span. Not sampled, it still carries its ids (the traceparent sent upstream) and records nothing. */
export class LeanSpan implements Span, RecordedSpan {
  readonly attributeList: (string | AttributeValue)[] = [];
  status: SpanStatus = UNSET;
  endMs = 0;
  readonly startMs = nowMs();
  #context: SpanContext | null = null;
  #ended = false;

  constructor(
    readonly sink: SpanSink,
    readonly t0: number,
    readonly t1: number,
    readonly t2: number,
    readonly t3: number,
    readonly s0: number,
    readonly s1: number,
    readonly p0: number,
    readonly p1: number,
    readonly traceState: string | undefined,
    public name: string,
    readonly kind: SpanKind,
    readonly sampled: boolean,
  ) {}

  get traceId(): string {
    return hexWord(this.t0) + hexWord(this.t1) + hexWord(this.t2) + hexWord(this.t3);
  }
  get spanId(): string {
    return hexWord(this.s0) + hexWord(this.s1);
  }
  get parentSpanId(): string {
    return this.p0 === 0 && this.p1 === 0 ? '' : hexWord(this.p0) + hexWord(this.p1);
  }
  get attributes(): Record<string, AttributeValue> {
    const record: Record<string, AttributeValue> = {};
    for (let i = 0; i < this.attributeList.length; i += 2) record[this.attributeList[i] as string] = this.attributeList[i + 1]!;
    return record;
  }

  spanContext(): SpanContext {
    this.#context ??= { traceId: this.traceId, spanId: this.spanId, traceFlags: this.sampled ? 1 : 0 };
    return this.#context;
  }
  setAttribute(key: string, value: AttributeValue): this {
    if (!this.sampled || this.#ended || value === undefined) return this;
    const list = this.attributeList;
    for (let i = 0; i < list.length; i += 2) {
      if (list[i] === key) {
        list[i + 1] = value;
        return this;
      }
    }
    list.push(key, value);
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
  /** W3C's traceparent naming this span the parent. */
  traceparent(): string {
    return `00-${this.traceId}-${this.spanId}-0${this.sampled ? 1 : 0}`;
  }
}

/** The unsigned 32-bit words of a lower-case hex id (8 digits each). */
const wordsOf = (hex: string, count: number) => Array.from({ length: count }, (_, i) => Number.parseInt(hex.slice(i * 8, i * 8 + 8), 16));

interface Parent {
  t0: number;
  t1: number;
  t2: number;
  t3: number;
  s0: number;
  s1: number;
  sampled: boolean;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;

/**
 * The caller's W3C traceparent (version-traceid-parentid-flags, lower-case hex), when it is a valid
 * one: version ff and all-zero ids are not; version 00 has exactly four fields, a later version may
 * add some after a dash (W3C Trace Context, 3.2.4).
 */
function parentOf(header: string | string[] | undefined): Parent | null {
  if (typeof header !== 'string') return null;
  const text = header.trim();
  const match = TRACEPARENT.exec(text);
  if (!match || match[1] === 'ff' || /^0+$/.test(match[2]!) || /^0+$/.test(match[3]!)) return null;
  if (match[1] === '00' && text.length !== 55) return null;
  const [t0, t1, t2, t3] = wordsOf(match[2]!, 4) as [number, number, number, number];
  const [s0, s1] = wordsOf(match[3]!, 2) as [number, number];
  return { t0, t1, t2, t3, s0, s1, sampled: (Number.parseInt(match[4]!, 16) & 1) === 1 };
}

export function createTracing(sink: SpanSink): Tracing {
  /** A span id's second word, drawn again in the one case of 2^64 that makes the id all zeroes. */
  const secondWord = (first: number) => {
    let word = randomWord();
    while (first === 0 && word === 0) word = randomWord();
    return word;
  };
  return {
    startRequest(name, headers) {
      const parent = parentOf(headers.traceparent);
      let t0: number;
      let t1: number;
      let t2: number;
      let t3: number;
      if (parent) ({ t0, t1, t2, t3 } = parent);
      else {
        do {
          t0 = randomWord();
          t1 = randomWord();
          t2 = randomWord();
          t3 = randomWord();
        } while (t0 === 0 && t1 === 0 && t2 === 0 && t3 === 0);
      }
      const sampled = sink.sample(t3, parent ? parent.sampled : null);
      const state = parent && typeof headers.tracestate === 'string' ? headers.tracestate : undefined;
      const s0 = randomWord();
      return new LeanSpan(sink, t0, t1, t2, t3, s0, secondWord(s0), parent?.s0 ?? 0, parent?.s1 ?? 0, state, name, SpanKind.SERVER, sampled);
    },
    child(parent, name, attributes, kind = SpanKind.INTERNAL) {
      let span: LeanSpan;
      const s0 = randomWord();
      if (parent instanceof LeanSpan) {
        span = new LeanSpan(
          sink,
          parent.t0,
          parent.t1,
          parent.t2,
          parent.t3,
          s0,
          secondWord(s0),
          parent.s0,
          parent.s1,
          parent.traceState,
          name,
          kind,
          parent.sampled,
        );
      } else {
        const context = parent.spanContext();
        const [t0, t1, t2, t3] = wordsOf(context.traceId, 4) as [number, number, number, number];
        const [p0, p1] = wordsOf(context.spanId, 2) as [number, number];
        span = new LeanSpan(sink, t0, t1, t2, t3, s0, secondWord(s0), p0, p1, undefined, name, kind, (context.traceFlags & 1) === 1);
      }
      if (attributes) span.setAttributes(attributes);
      return span;
    },
    traceparentOf(span) {
      if (span instanceof LeanSpan) return span.traceparent();
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
