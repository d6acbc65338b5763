// A Server-Sent Events answer leaves in as few socket writes as its events allow (http/event-stream.ts):
// what is written in one turn of the event loop goes out together. Read from the server's own sockets
// on a listening Tollbooth, for the OpenAI-compatible stream, the Responses stream and the Dify stream,
// each read to its end by a client.
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestContext, type TestContext } from '../test-support/app.ts';
import type { FakeProviderServer } from '../test-support/fakes/http-fake.ts';
import { startOpenAIFake } from '../test-support/fakes/openai-fake.ts';

vi.setConfig({ testTimeout: 120_000 });

let ctx: TestContext;
let upstream: FakeProviderServer;
let base: string;
let slug: string;
let key: string;

/** The text of each write Tollbooth's HTTP sockets made while `capturing`. */
const writes: string[] = [];
let capturing = false;
const text = (chunk: unknown) => (Buffer.isBuffer(chunk) ? chunk.toString('latin1') : String(chunk));

type WritableInternals = {
  _write: (chunk: unknown, encoding: BufferEncoding, callback: (error?: Error | null) => void) => void;
  _writev?: (chunks: { chunk: unknown }[], callback: (error?: Error | null) => void) => void;
};

beforeAll(async () => {
  upstream = await startOpenAIFake({ apiKey: 'sk-upstream' });
  ctx = await createTestContext({ OPENAI_BASE_URL: upstream.baseUrl, OPENAI_API_KEY: 'sk-upstream', RATE_LIMIT_PER_MINUTE: '100000' });
  ctx.app.server.on('connection', (socket: Socket) => {
    const internals = socket as unknown as WritableInternals;
    const write = internals._write.bind(socket);
    internals._write = (chunk, encoding, callback) => {
      if (capturing) writes.push(text(chunk));
      write(chunk, encoding, callback);
    };
    const writev = internals._writev?.bind(socket);
    if (writev)
      internals._writev = (chunks, callback) => {
        if (capturing) writes.push(chunks.map(({ chunk }) => text(chunk)).join(''));
        writev(chunks, callback);
      };
  });
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;

  const owner = await ctx.tokenFor('stream-writes-owner');
  const call = (method: string, path: string, token: string, body?: object) =>
    fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    }).then(async (response) => (await response.json()) as Record<string, unknown>);
  const app = await call('POST', '/api/app/', owner, {
    name: 'Stream Writes',
    type: 'prompt',
    visibility: 'public',
    price_cents: 1,
    interaction_mode: 'completion',
  });
  slug = app.slug as string;
  await call('PATCH', `/api/app/${slug}/update_status/`, owner, { status: 'live' });
  const consumer = await ctx.tokenFor('stream-writes-consumer');
  key = (await call('POST', '/api/keys/', consumer, { name: 'streams' })).key as string;
}, 180_000);
afterAll(async () => {
  await ctx?.close();
  await upstream?.close();
});

/** Makes the call, reads its whole answer, and returns the answer and the server's socket writes for it. */
async function writesOf(path: string, body: object): Promise<{ answer: string; writes: string[] }> {
  writes.length = 0;
  capturing = true;
  try {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const answer = await response.text();
    return { answer, writes: [...writes] };
  } finally {
    capturing = false;
  }
}

const CHUNKED_END = '0\r\n\r\n';

describe('a streamed answer', () => {
  it('OpenAI-compatible: the headers leave with the role chunk, and the finish, usage and [DONE] chunks with the end of the answer', async () => {
    const { answer, writes } = await writesOf('/v1/chat/completions', {
      model: slug,
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(answer).toContain('"role":"assistant"');
    expect(answer.trimEnd().endsWith('data: [DONE]')).toBe(true);

    expect(writes[0]).toMatch(/^HTTP\/1\.1 200 /);
    expect(writes[0]).toContain('"role":"assistant"');
    const last = writes.at(-1)!;
    expect(last).toContain('"finish_reason":"stop"');
    expect(last).toContain('"usage":{');
    expect(last).toContain('data: [DONE]');
    expect(last.endsWith(CHUNKED_END)).toBe(true);
    // Whatever the upstream's text chunks were, no write carries a lone piece of the end.
    expect(writes.filter((write) => write.includes('[DONE]') || write.includes('"finish_reason":"stop"') || write === CHUNKED_END)).toHaveLength(1);
  });

  it('Responses API: the headers leave with response.created, and response.completed with the end of the answer', async () => {
    const { answer, writes } = await writesOf('/v1/responses', { model: slug, input: 'Hello', stream: true });
    expect(answer).toContain('event: response.completed');

    expect(writes[0]).toMatch(/^HTTP\/1\.1 200 /);
    expect(writes[0]).toContain('event: response.created');
    const last = writes.at(-1)!;
    expect(last).toContain('event: response.completed');
    expect(last.endsWith(CHUNKED_END)).toBe(true);
  });

  it('Dify: the headers leave at once, before the model answers, and message_end with the end of the answer', async () => {
    const { answer, writes } = await writesOf(`/api/app/${slug}/completion-messages`, {
      inputs: { query: 'Hello' },
      response_mode: 'streaming',
      user: 'u',
    });
    expect(answer).toContain('"event":"message_end"');

    expect(writes[0]).toMatch(/^HTTP\/1\.1 200 /);
    expect(writes[0]).not.toContain('data: ');
    const last = writes.at(-1)!;
    expect(last).toContain('"event":"message_end"');
    expect(last.endsWith(CHUNKED_END)).toBe(true);
  });
});
