// The management API's answers are compressed on the fly above 1 KiB (brotli or gzip, as
// accepted), never below it; the callers' endpoints (the gateway) and event streams never are.
import { Readable } from 'node:stream';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../test-support/app.ts';
import { COMPRESSION_THRESHOLD_BYTES, registerCompression } from './compression.ts';

let ctx: TestContext;
let ownerToken: string;

beforeAll(async () => {
  ctx = await createTestContext({ RATE_LIMIT_PER_MINUTE: '100000' });
  ownerToken = await ctx.tokenFor('compression-owner');
  // Enough applications for the owner's list to be several KiB of JSON.
  for (let index = 1; index <= 6; index++) {
    const created = await ctx.api('POST', '/api/app/', ownerToken, {
      name: `Compression check ${index}`,
      type: 'prompt',
      visibility: 'public',
      price_cents: 25,
    });
    expect(created.statusCode, created.body).toBe(201);
  }
}, 180_000);
afterAll(() => ctx?.close());

const get = (url: string, acceptEncoding?: string) =>
  ctx.app.inject({ url, headers: { authorization: `Bearer ${ownerToken}`, ...(acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding }) } });

describe('API JSON above the threshold', () => {
  // The owner's application list.
  const large = '/api/app/';

  it('is sent with brotli when accepted, with an exact Content-Length and Vary: Accept-Encoding', async () => {
    const plain = await get(large);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.rawPayload.length).toBeGreaterThan(COMPRESSION_THRESHOLD_BYTES);

    const response = await get(large, 'gzip, deflate, br');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-encoding']).toBe('br');
    expect(String(response.headers.vary)).toMatch(/accept-encoding/i);
    expect(response.headers['content-type']).toContain('application/json');
    // Never a stale length: exact when compressed in one go, none (chunked) when compressed as a stream.
    expect([undefined, String(response.rawPayload.length)]).toContain(response.headers['content-length']);
    expect(response.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2);
    expect(brotliDecompressSync(response.rawPayload).toString()).toBe(plain.body);
  });

  it('is sent with gzip to a client that takes only gzip, and as is to one that asks for identity', async () => {
    const plain = await get(large);
    const gzipped = await get(large, 'gzip');
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzipped.rawPayload).toString()).toBe(plain.body);

    const identity = await get(large, 'identity');
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.body).toBe(plain.body);
  });
});

describe('the platform OpenAPI document at /api/docs/json (issue 26)', () => {
  it('is compressed like the rest of /api, to a tenth of its size or less', async () => {
    const plain = await get('/api/docs/json');
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.rawPayload.length).toBeGreaterThan(100_000);
    for (const [accept, decode] of [
      ['br', brotliDecompressSync],
      ['gzip', gunzipSync],
    ] as const) {
      const response = await get('/api/docs/json', accept);
      expect(response.statusCode, accept).toBe(200);
      expect(response.headers['content-encoding'], accept).toBe(accept);
      expect(response.rawPayload.length, accept).toBeLessThan(plain.rawPayload.length / 5);
      expect(JSON.parse(decode(response.rawPayload).toString()).openapi, accept).toBe(plain.json().openapi);
    }
  });
});

describe('API JSON below the threshold', () => {
  it('is sent as is, whatever the client accepts', async () => {
    const response = await get('/api/health', 'gzip, deflate, br');
    expect(response.statusCode).toBe(200);
    expect(response.rawPayload.length).toBeLessThan(COMPRESSION_THRESHOLD_BYTES);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.json().status).toBeTruthy();
  });
});

describe('event streams', () => {
  it("the gateway's answers are not compressed on the fly: neither a stream nor a blocking answer above 1 KiB", async () => {
    const api = (method: 'POST' | 'PATCH', url: string, payload: object, headers: Record<string, string> = {}) =>
      ctx.app.inject({ method, url, payload, headers: { authorization: `Bearer ${ownerToken}`, ...headers } });
    const slug = (await get('/api/app/')).json()[0].slug as string;
    expect((await api('PATCH', `/api/app/${slug}/update_status/`, { status: 'live' })).statusCode).toBe(200);
    /** The app's completion call in this response mode, accepting these encodings. */
    const completion = (mode: 'streaming' | 'blocking', acceptEncoding: string) =>
      api('POST', `/api/app/${slug}/completion-messages`, { inputs: { query: 'owls' }, response_mode: mode }, { 'accept-encoding': acceptEncoding });

    const streamed = await completion('streaming', 'gzip, deflate, br');
    expect(streamed.statusCode).toBe(200);
    expect(streamed.headers['content-type']).toContain('text/event-stream');
    expect(streamed.headers['content-encoding']).toBeUndefined();
    expect(streamed.body).toContain('data: {');
    expect(streamed.body).toContain('"event":"message_end"');

    const blocking = await completion('blocking', 'br');
    expect(blocking.statusCode).toBe(200);
    expect(blocking.rawPayload.length).toBeGreaterThan(COMPRESSION_THRESHOLD_BYTES);
    expect(blocking.headers['content-encoding']).toBeUndefined();
    expect(blocking.json().answer).toBeTruthy();
  });

  it('a text/event-stream answer sent through Fastify (not the raw socket) is not compressed either', async () => {
    const app = Fastify();
    await registerCompression(app);
    const events = `${'data: {"event":"message","answer":"owl"}\n\n'.repeat(200)}`;
    app.get('/events', (_request, reply) => reply.type('text/event-stream; charset=utf-8').send(Readable.from([events])));
    app.get('/text', (_request, reply) => reply.type('text/plain; charset=utf-8').send(events));
    try {
      const stream = await app.inject({ url: '/events', headers: { 'accept-encoding': 'br, gzip' } });
      expect(stream.headers['content-encoding']).toBeUndefined();
      expect(stream.body).toBe(events);
      // The same bytes as plain text are compressed: the event stream is excluded by its type.
      const text = await app.inject({ url: '/text', headers: { 'accept-encoding': 'br, gzip' } });
      expect(text.headers['content-encoding']).toBe('br');
    } finally {
      await app.close();
    }
  });
});
