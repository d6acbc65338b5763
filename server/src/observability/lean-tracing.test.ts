// The lean spans' own rules (decision 0114), without a server: W3C traceparent parsing, the
// samplers of OTEL_TRACES_SAMPLER, and the OTLP protobuf and JSON an export sends (one batch and many,
// through the bounded queue to a real OTLP/HTTP receiver on loopback).
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { createTracing, type RecordedSpan, type SpanSink } from '../platform/tracing.ts';
import { decodeJsonTraceRequest, decodeTraceRequest, startOtlpReceiver } from '../test-support/fakes/otlp-receiver.ts';
import { createSpanQueue, jsonFormat, otlpHttpExport, otlpJson, protobufFormat, type SpanFormat, samplerOf } from './tracing.ts';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const PARENT = 'b7ad6b7169203331';

function recorder(sample: SpanSink['sample'] = () => true) {
  const ended: RecordedSpan[] = [];
  return { ended, tracing: createTracing({ sample, ended: (span) => ended.push(span) }) };
}

describe('lean spans', () => {
  it("continue a valid traceparent, start a new trace for a missing or invalid one, and hand the upstream the span's own", () => {
    const { tracing, ended } = recorder();
    const continued = tracing.startRequest('POST /x', { traceparent: `00-${TRACE}-${PARENT}-01`, tracestate: 'vendor=1' });
    expect(continued.spanContext()).toMatchObject({ traceId: TRACE, traceFlags: 1 });
    expect(tracing.traceparentOf(continued)).toBe(`00-${TRACE}-${continued.spanContext().spanId}-01`);
    // A later version may carry more fields after a dash; its ids are read as version 00's.
    expect(tracing.startRequest('POST /x', { traceparent: `cc-${TRACE}-${PARENT}-01-what-comes-later` }).spanContext().traceId).toBe(TRACE);
    expect(tracing.startRequest('POST /x', { traceparent: `  00-${TRACE}-${PARENT}-00 ` }).spanContext().traceId).toBe(TRACE);
    for (const invalid of [
      'garbage',
      '',
      `ff-${TRACE}-${PARENT}-01`,
      `00-${'0'.repeat(32)}-${PARENT}-01`,
      `00-${TRACE}-${'0'.repeat(16)}-01`,
      `00-${TRACE}-${PARENT}-01-extra`,
      `cc-${TRACE}-${PARENT}-01x`,
      `00-${TRACE.toUpperCase()}-${PARENT}-01`,
      `00-${TRACE}-${PARENT}-0g`,
      `0g-${TRACE}-${PARENT}-01`,
      `00_${TRACE}-${PARENT}-01`,
      `00-${TRACE.slice(0, 31)}z-${PARENT}-01`,
      `00-${TRACE}-${PARENT.slice(0, 15)}\u00e9-01`,
      `00-${TRACE}-${PARENT}-\u0660\u0661`,
    ]) {
      const fresh = tracing.startRequest('POST /x', { traceparent: invalid });
      expect(fresh.spanContext().traceId, invalid).not.toBe(TRACE);
      expect(fresh.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
      fresh.end();
    }
    const child = tracing.child(continued, 'authenticate', { 'tollbooth.price_cents': 7 }, SpanKind.CLIENT);
    child.setAttribute('gen_ai.usage.input_tokens', 11);
    child.setAttribute('gen_ai.usage.input_tokens', 12);
    child.setStatus({ code: SpanStatusCode.ERROR, message: 'no' });
    child.end();
    child.setAttribute('late', true);
    child.end();
    continued.end();
    const [first] = ended.filter((span) => span.name === 'authenticate');
    expect(first).toMatchObject({ traceId: TRACE, parentSpanId: continued.spanContext().spanId, traceState: 'vendor=1', kind: SpanKind.CLIENT });
    expect(first!.attributes).toEqual({ 'tollbooth.price_cents': 7, 'gen_ai.usage.input_tokens': 12 });
    expect(ended.filter((span) => span.name === 'authenticate')).toHaveLength(1);
    expect(first!.endMs).toBeGreaterThanOrEqual(first!.startMs);
  });

  it('follow the samplers: a caller not sampled, always_off or a ratio of 0 records nothing but still propagates', () => {
    const parentBased = recorder(samplerOf('parentbased_always_on', 1));
    const unsampled = parentBased.tracing.startRequest('POST /x', { traceparent: `00-${TRACE}-${PARENT}-00` });
    unsampled.setAttribute('a', 1);
    parentBased.tracing.child(unsampled, 'settlement').end();
    unsampled.end();
    expect(parentBased.ended).toEqual([]);
    expect(parentBased.tracing.traceparentOf(unsampled)).toMatch(/-00$/);

    const low = Number.parseInt(TRACE.slice(24), 16);
    expect(samplerOf('always_off', 1)(low, true)).toBe(false);
    expect(samplerOf('always_on', 1)(low, false)).toBe(true);
    expect(samplerOf('parentbased_always_off', 1)(low, null)).toBe(false);
    expect(samplerOf('parentbased_always_off', 1)(low, true)).toBe(true);
    expect(samplerOf('traceidratio', 0)(low, null)).toBe(false);
    expect(samplerOf('traceidratio', 1)(low, null)).toBe(true);
    // A ratio keeps about that share of random traces, and decides one trace alike every time.
    const half = samplerOf('parentbased_traceidratio', 0.5);
    const ids = Array.from({ length: 4000 }, (_, i) => (i * 2654435761) >>> 0);
    const kept = ids.filter((id) => half(id, null)).length / ids.length;
    expect(kept).toBeGreaterThan(0.45);
    expect(kept).toBeLessThan(0.55);
    const again = samplerOf('parentbased_traceidratio', 0.5);
    // The trace's low word is what a ratio reads: the same trace id read from a caller's traceparent decides alike.
    const ratio = samplerOf('traceidratio', 0.5);
    const continued = createTracing({ sample: ratio, ended: () => {} });
    for (const id of ids.slice(0, 200)) {
      const traceId = `${TRACE.slice(0, 24)}${id.toString(16).padStart(8, '0')}`;
      expect(continued.startRequest('POST /x', { traceparent: `00-${traceId}-${PARENT}-01` }).isRecording()).toBe(ratio(id, null));
    }
    expect(ids.every((id) => half(id, null) === again(id, null))).toBe(true);
  });

  it('export as OTLP JSON: hex ids, OTLP span kinds, nanosecond strings, typed attribute values', () => {
    const { tracing, ended } = recorder();
    const root = tracing.startRequest('POST /x', {});
    root.setAttribute('s', 'text');
    root.setAttribute('i', 42);
    root.setAttribute('d', 0.5);
    root.setAttribute('b', true);
    root.end();
    const body = JSON.parse(otlpJson(ended, 'svc'));
    const sent = body.resourceSpans[0].scopeSpans[0].spans[0];
    expect(sent.kind).toBe(2);
    expect(sent.attributes).toEqual([
      { key: 's', value: { stringValue: 'text' } },
      { key: 'i', value: { intValue: '42' } },
      { key: 'd', value: { doubleValue: 0.5 } },
      { key: 'b', value: { boolValue: true } },
    ]);
    expect(sent.startTimeUnixNano).toMatch(/^\d{19}$/);
    expect(Math.abs(Number(BigInt(sent.startTimeUnixNano) / 1_000_000n) - Date.now())).toBeLessThan(60_000);
    const [decoded] = decodeJsonTraceRequest(body);
    expect(decoded).toMatchObject({ name: 'POST /x', kind: 2, serviceName: 'svc', parentSpanId: '', attributes: { s: 'text', i: 42, d: 0.5, b: true } });
  });

  /** Spans with every kind of value: non-ASCII and long strings, negative and large integers, arrays, an error status, a tracestate. */
  function variedSpans(negative = -42): RecordedSpan[] {
    const { tracing, ended } = recorder();
    const root = tracing.startRequest('POST /v1/chat-messages', { traceparent: `00-${TRACE}-${PARENT}-01`, tracestate: 'vendor=1,other=2' });
    root.setAttribute('text', 'naïve — 東京 ✓');
    root.setAttribute('long', 'x'.repeat(300));
    root.setAttribute('negative', negative);
    root.setAttribute('large', 2 ** 40 + 7);
    root.setAttribute('double', 0.125);
    root.setAttribute('yes', true);
    root.setAttribute('no', false);
    root.setAttribute('list', ['a', 'b']);
    root.setAttribute('empty', '');
    const child = tracing.child(root, 'chat gpt-4o-mini', { 'gen_ai.usage.input_tokens': 12 }, SpanKind.CLIENT);
    child.setStatus({ code: SpanStatusCode.ERROR, message: 'upstream answered 502 — bad gateway' });
    child.end();
    root.setAttribute('many', 'y'.repeat(20_000));
    root.end();
    return ended;
  }

  it('export as OTLP protobuf: the same spans, ids, times and values as the JSON mapping', () => {
    const format = protobufFormat('svc');
    const encode = (spans: RecordedSpan[]) => {
      const batch = Buffer.alloc(256 * 1024);
      let used = 0;
      for (const span of spans) used = format.append(span, batch, used, used === 0)!;
      return decodeTraceRequest(Buffer.concat(format.body(batch.subarray(0, used))));
    };
    // Written again and again: repeated attributes come from the encoder's cache of whole fields, and
    // a key with more values than it keeps (here 'negative', 40 of them) is written each time.
    for (let round = 0; round < 40; round++) {
      const again = variedSpans(-round);
      expect(encode(again)).toEqual(decodeJsonTraceRequest(JSON.parse(otlpJson(again, 'svc'))));
    }
    const spans = variedSpans();
    const decoded = encode(spans);
    const fromJson = decodeJsonTraceRequest(JSON.parse(otlpJson(spans, 'svc')));
    expect(decoded).toEqual(fromJson);
    expect(decoded[0]).toMatchObject({
      name: 'chat gpt-4o-mini',
      kind: 3,
      statusCode: 2,
      statusMessage: 'upstream answered 502 — bad gateway',
      serviceName: 'svc',
    });
    expect(decoded[1]!.attributes).toMatchObject({
      text: 'naïve — 東京 ✓',
      negative: -42,
      large: 2 ** 40 + 7,
      double: 0.125,
      yes: true,
      no: false,
      list: ['a', 'b'],
      empty: '',
    });
    expect(decoded[1]!.attributes.many).toHaveLength(20_000);
    // Nanoseconds to the microsecond, exactly: the span's epoch milliseconds × 10^6.
    expect(decoded[1]!.startTimeUnixNano).toBe(`${Math.round(spans[1]!.startMs * 1000)}000`);
    expect(decoded[1]!.parentSpanId).toBe(PARENT);
    // A usual span takes about half the bytes of its JSON.
    const one = Buffer.alloc(4096);
    const oneBody = Buffer.concat(format.body(one.subarray(0, format.append(spans[0]!, one, 0, true)!)));
    expect(oneBody.length).toBeLessThan(Buffer.byteLength(otlpJson([spans[0]!], 'svc')) * 0.6);
  });

  it('a span too large for any batch is dropped and counted; one that fills a batch starts the next', () => {
    const { tracing, ended } = recorder();
    const huge = tracing.startRequest('POST /huge', {});
    huge.setAttribute('blob', 'z'.repeat(1200 * 1024));
    huge.end();
    for (const format of [protobufFormat('svc'), jsonFormat('svc')]) {
      expect(format.append(ended[0]!, Buffer.alloc(512 * 1024), 0, true)).toBeNull();
      const small = variedSpans()[0]!;
      const tight = Buffer.alloc(64);
      expect(format.append(small, tight, 0, true)).toBe(-1);
    }
  });

  for (const [protocol, format] of [
    ['http/protobuf', protobufFormat('svc')],
    ['http/json', jsonFormat('svc')],
  ] as [string, SpanFormat][]) {
    it(`go through the bounded queue to an OTLP/HTTP receiver in batches (${protocol})`, async () => {
      const receiver = await startOtlpReceiver();
      let dropped = 0;
      try {
        const queue = createSpanQueue(otlpHttpExport(`${receiver.endpoint}/v1/traces`, { 'x-api-key': 'k' }, format), (count) => (dropped += count), format);
        const traced = createTracing({ sample: () => true, ended: (span) => queue.ended(span) });
        // More spans than one batch holds (2,048), fewer than the queue's bound (8,192).
        for (let i = 0; i < 5000; i++) {
          const root = traced.startRequest('POST /x', {});
          root.setAttribute('i', i);
          root.end();
        }
        await queue.shutdown();
        expect(dropped).toBe(0);
        expect(receiver.spans).toHaveLength(5000);
        expect(new Set(receiver.spans.map((span) => span.attributes.i)).size).toBe(5000);
        expect(receiver.contentTypes.length).toBeGreaterThanOrEqual(3);
        expect(new Set(receiver.contentTypes)).toEqual(new Set([format.contentType]));
      } finally {
        await receiver.close();
      }
    });
  }
});
