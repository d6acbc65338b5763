// OpenTelemetry traces of paid calls (issue 58), received by a real OTLP/HTTP receiver on loopback
// (test-support/fakes/otlp-receiver.ts decodes the exporter's OTLP protobuf): one trace per paid call,
// continuing the caller's traceparent, with the authenticate, plan/reserve, upstream and settlement
// spans, GenAI attributes, the price and the outcome; the upstream request carries a traceparent
// naming the upstream span; the request log carries trace_id and span_id, and a request id always.
// An unreachable endpoint neither slows nor fails a call, and its dropped spans are counted.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPaidTestContext, listenOnLoopback, type PaidTestContext } from '../test-support/app.ts';
import { createDifyTestContext, workflowAppFields } from '../test-support/dify-app.ts';
import type { DifyFake } from '../test-support/fakes/dify-fake.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../test-support/fakes/otlp-receiver.ts';

vi.setConfig({ testTimeout: 120_000 });

const METRICS_TOKEN = 'metrics-token-for-tracing-test';
let receiver: OtlpReceiver;
let ctx: PaidTestContext & { dify: DifyFake };
let base: string;
const DIFY_KEY = 'app-secretTracedDifyKey00000';
let callerKey: string;
let ownerToken: string;
const logLines: Record<string, unknown>[] = [];

const api = (method: 'GET' | 'POST' | 'PATCH', url: string, token: string, payload?: object) =>
  ctx.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) logLines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  ctx = await createDifyTestContext(
    { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: 'tollbooth-test', METRICS_TOKEN, PLATFORM_FEE_BPS: '1000' },
    { paid: true, apiKey: DIFY_KEY, logger: { level: 'info', stream } },
  );
  base = await listenOnLoopback(ctx.app);
  ownerToken = await ctx.tokenFor('trace-owner');
  const callerToken = await ctx.tokenFor('trace-caller');
  const key = await api('POST', '/api/keys/', callerToken, { name: 'tracing' });
  expect(key.statusCode, key.body).toBe(201);
  callerKey = key.json().key as string;
}, 180_000);
afterAll(async () => {
  await ctx?.close();
  await receiver?.close();
});

let counter = 0;
async function liveApp(mode: 'completion' | 'chat' = 'completion') {
  return (await ctx.liveApp(ownerToken, { name: `Traced ${++counter}`, price_cents: 7, interaction_mode: mode })).slug;
}

/** Waits (bounded) until the receiver holds spans of the trace that match. */
async function spansOf(traceId: string, count: number): Promise<ReceivedSpan[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const found = receiver.spans.filter((span) => span.traceId === traceId);
    if (found.length >= count || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const CALLER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CALLER_SPAN = 'b7ad6b7169203331';

describe('traces of paid calls', () => {
  it("continues the caller's traceparent with the call's spans, GenAI attributes, price and outcome, and hands the upstream a traceparent", async () => {
    const slug = await liveApp();
    const before = ctx.model.requests.length;
    const answer = await ctx.app.inject({
      method: 'POST',
      url: `/api/app/${slug}/completion-messages`,
      headers: { authorization: `Bearer ${callerKey}`, traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`, 'x-request-id': 'req-traced-1' },
      payload: { inputs: { query: 'Hi' }, response_mode: 'blocking', user: 'u' },
    });
    expect(answer.statusCode, answer.body).toBe(200);

    const spans = await spansOf(CALLER_TRACE, 5);
    const byName = (name: string) => spans.filter((span) => span.name === name);
    const server = byName('POST /api/app/:slug/completion-messages');
    expect(server).toHaveLength(1);
    const root = server[0]!;
    expect(root.parentSpanId).toBe(CALLER_SPAN);
    expect(root.kind).toBe(2);
    expect(root.serviceName).toBe('tollbooth-test');
    expect(root.attributes).toMatchObject({
      'http.route': '/api/app/:slug/completion-messages',
      'http.response.status_code': 200,
      'gen_ai.operation.name': 'chat',
      'tollbooth.price_cents': 7,
      'tollbooth.outcome': 'success',
      'tollbooth.request_id': 'req-traced-1',
    });
    expect(root.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(root.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    for (const name of ['authenticate', 'plan/reserve', 'settlement']) {
      expect(byName(name), name).toHaveLength(1);
      expect(byName(name)[0]!.parentSpanId, name).toBe(root.spanId);
    }
    expect(byName('plan/reserve')[0]!.attributes).toMatchObject({ 'tollbooth.app_kind': 'prompt', 'tollbooth.price_cents': 7 });
    expect(byName('settlement')[0]!.attributes).toMatchObject({ 'tollbooth.price_cents': 7 });
    const upstream = spans.filter((span) => span.name.startsWith('chat '));
    expect(upstream).toHaveLength(1);
    expect(upstream[0]).toMatchObject({ parentSpanId: root.spanId, kind: 3 });
    expect(upstream[0]!.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'tollbooth.price_cents': 7 });
    expect(upstream[0]!.name).toBe(`chat ${upstream[0]!.attributes['gen_ai.request.model']}`);
    expect(upstream[0]!.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);

    // The upstream request carried a traceparent naming the upstream span, in the caller's trace.
    const sent = ctx.model.requests.slice(before).map((request) => request.headers.traceparent);
    expect(sent).toEqual([`00-${CALLER_TRACE}-${upstream[0]!.spanId}-01`]);

    // The request's log lines carry the trace and span ids, and its request id.
    const completed = logLines.find((line) => line.reqId === 'req-traced-1' && line.msg === 'request completed');
    expect(completed).toMatchObject({ trace_id: CALLER_TRACE, span_id: root.spanId });
    // Exported as OTLP/HTTP with protobuf bodies, the default (decision 0150).
    expect(receiver.contentTypes.length).toBeGreaterThan(0);
    expect(receiver.contentTypes.every((type) => type === 'application/x-protobuf')).toBe(true);
  });

  it('makes one trace per call without a traceparent, and marks a refused call with its outcome', async () => {
    const slug = await liveApp();
    const first = receiver.spans.length;
    const ok = await ctx.api('POST', `/api/app/${slug}/completion-messages`, callerKey, { inputs: { query: 'Hi' }, response_mode: 'blocking', user: 'u' });
    expect(ok.statusCode).toBe(200);
    const refused = await ctx.app.inject({
      method: 'POST',
      url: `/api/app/${slug}/completion-messages`,
      headers: { authorization: 'Bearer tb_not-a-key' },
      payload: { inputs: { query: 'Hi' }, response_mode: 'blocking', user: 'u' },
    });
    expect(refused.statusCode).toBe(401);
    const deadline = Date.now() + 60_000;
    let roots: ReceivedSpan[] = [];
    while (Date.now() < deadline) {
      roots = receiver.spans.slice(first).filter((span) => span.name === 'POST /api/app/:slug/completion-messages');
      if (roots.length >= 2) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(roots).toHaveLength(2);
    expect(new Set(roots.map((span) => span.traceId)).size).toBe(2);
    expect(roots.map((span) => span.parentSpanId)).toEqual(['', '']);
    const refusedRoot = roots.find((span) => span.attributes['http.response.status_code'] === 401)!;
    expect(refusedRoot.attributes).toMatchObject({ 'tollbooth.outcome': 'rejected', 'error.type': 'unauthorized' });
    const refusedAuth = (await spansOf(refusedRoot.traceId, 3)).find((span) => span.name === 'authenticate');
    expect(refusedAuth).toMatchObject({ statusCode: 2 });
  });

  it('traces the OpenAI and Responses doors too', async () => {
    const slug = await liveApp('chat');
    const traced = async (url: string, payload: object, trace: string) => {
      const answer = await ctx.app.inject({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${callerKey}`, traceparent: `00-${trace}-${CALLER_SPAN}-01` },
        payload,
      });
      expect(answer.statusCode, answer.body).toBe(200);
      const spans = await spansOf(trace, 5);
      expect(spans.map((span) => span.name).sort()).toEqual(
        ['authenticate', 'plan/reserve', 'settlement', `POST ${url}`, spans.find((span) => span.kind === 3)!.name].sort(),
      );
    };
    await traced('/v1/chat/completions', { model: slug, messages: [{ role: 'user', content: 'Hi' }] }, '1af7651916cd43dd8448eb211c80319c');
    await traced('/v1/responses', { model: slug, input: 'Hi' }, '2af7651916cd43dd8448eb211c80319c');
  });

  it("ends a stream's server span when the answer is written, and when its caller hangs up halfway", async () => {
    const slug = await liveApp();
    const streamed = await ctx.app.inject({
      method: 'POST',
      url: `/api/app/${slug}/completion-messages`,
      headers: { authorization: `Bearer ${callerKey}`, traceparent: `00-3af7651916cd43dd8448eb211c80319c-${CALLER_SPAN}-01` },
      payload: { inputs: { query: 'Hi' }, response_mode: 'streaming', user: 'u' },
    });
    expect(streamed.statusCode).toBe(200);
    expect(streamed.body).toContain('message_end');
    const whole = (await spansOf('3af7651916cd43dd8448eb211c80319c', 5)).find((span) => span.kind === 2);
    expect(whole?.attributes).toMatchObject({ 'http.response.status_code': 200, 'tollbooth.outcome': 'success' });

    // A caller who reads the first event and hangs up: the response never finishes, its span still ends.
    ctx.model.setBehaviour({ text: Array.from({ length: 40 }, (_, i) => `word${i}`).join(' '), chunkDelayMs: 50 });
    try {
      const cutTrace = '4af7651916cd43dd8448eb211c80319c';
      const abort = new AbortController();
      const response = await fetch(`${base}/api/app/${slug}/completion-messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${callerKey}`, 'content-type': 'application/json', traceparent: `00-${cutTrace}-${CALLER_SPAN}-01` },
        body: JSON.stringify({ inputs: { query: 'Hi' }, response_mode: 'streaming', user: 'u' }),
        signal: abort.signal,
      });
      const first = await response.body!.getReader().read();
      expect(new TextDecoder().decode(first.value)).toContain('"event":"message"');
      abort.abort();
      const deadline = Date.now() + 60_000;
      let root: ReceivedSpan | undefined;
      while (!root && Date.now() < deadline) {
        root = receiver.spans.find((span) => span.traceId === cutTrace && span.kind === 2);
        if (!root) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(root, 'the server span of the cut stream was exported').toBeDefined();
      expect(root!.attributes).toMatchObject({
        'http.route': '/api/app/:slug/completion-messages',
        'http.response.status_code': 499,
        'error.type': 'client_closed',
      });
      expect(root!.statusCode).toBe(2);
    } finally {
      ctx.model.resetBehaviour();
    }
  });

  it('traces a Dify workflow run with its authenticate span, and a refused one', async () => {
    Object.assign(ctx.dify.app, { mode: 'workflow' });
    const created = await api('POST', '/api/app/', ownerToken, workflowAppFields(ctx.dify, DIFY_KEY, 'Traced flow', 5));
    expect(created.statusCode, created.body).toBe(201);
    const slug = created.json().slug as string;
    // Reads the Dify app's mode (a workflow), as the workflow page's save does.
    expect((await api('PATCH', `/api/app/${slug}/workflow/`, ownerToken, {})).statusCode).toBe(200);
    await api('PATCH', `/api/app/${slug}/update_status/`, ownerToken, { status: 'live' });
    const runTrace = '5af7651916cd43dd8448eb211c80319c';
    const run = await ctx.app.inject({
      method: 'POST',
      url: `/api/app/${slug}/workflows/run`,
      headers: { authorization: `Bearer ${callerKey}`, traceparent: `00-${runTrace}-${CALLER_SPAN}-01` },
      payload: { inputs: {}, response_mode: 'blocking', user: 'u' },
    });
    expect(run.statusCode, run.body).toBe(200);
    const spans = await spansOf(runTrace, 5);
    const root = spans.find((span) => span.kind === 2)!;
    expect(root.name).toBe('POST /api/app/:slug/workflows/run');
    for (const name of ['authenticate', 'plan/reserve', 'settlement']) {
      expect(
        spans.filter((span) => span.name === name).map((span) => span.parentSpanId),
        name,
      ).toEqual([root.spanId]);
    }
    expect(spans.find((span) => span.name === 'plan/reserve')!.attributes).toMatchObject({ 'tollbooth.app_kind': 'workflow' });

    const refusedTrace = '6af7651916cd43dd8448eb211c80319c';
    const refused = await ctx.app.inject({
      method: 'POST',
      url: `/api/app/${slug}/workflows/run`,
      headers: { authorization: 'Bearer tb_not-a-key', traceparent: `00-${refusedTrace}-${CALLER_SPAN}-01` },
      payload: { inputs: {}, response_mode: 'blocking', user: 'u' },
    });
    expect(refused.statusCode).toBe(401);
    const refusedSpans = await spansOf(refusedTrace, 2);
    expect(refusedSpans.find((span) => span.name === 'authenticate')).toMatchObject({ statusCode: 2, attributes: { 'error.type': 'unauthorized' } });
  });

  it('never slows or fails a paid call when the OTLP endpoint is unreachable, and counts the spans it drops', async () => {
    const gone = await startOtlpReceiver();
    await gone.close();
    const offline = await createPaidTestContext({ OTEL_EXPORTER_OTLP_ENDPOINT: gone.endpoint, METRICS_TOKEN });
    try {
      const owner = await offline.tokenFor('offline-owner');
      const { slug } = await offline.liveApp(owner, { name: 'Offline', type: 'prompt', visibility: 'public', price_cents: 1, interaction_mode: 'completion' });
      for (let i = 0; i < 3; i++) {
        const answer = await offline.api('POST', `/api/app/${slug}/completion-messages`, owner, {
          inputs: { query: 'Hi' },
          response_mode: 'blocking',
          user: 'u',
        });
        expect(answer.statusCode, answer.body).toBe(200);
      }
      const deadline = Date.now() + 60_000;
      let dropped = 0;
      while (Date.now() < deadline) {
        const scraped = await offline.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
        dropped = Number(/^tollbooth_trace_spans_dropped_total (\d+)/m.exec(scraped.body)?.[1] ?? 0);
        if (dropped >= 15) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(dropped).toBeGreaterThanOrEqual(15);
    } finally {
      await offline.close();
    }
  });
});
