// Real sockets: uploads in multipart, output-schema enforcement, and a client that goes away
// mid-stream (which app.inject cannot simulate).
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../test-support/app.ts';
import type { FakeProviderServer } from '../test-support/fakes/http-fake.ts';
import { startOpenAIFake } from '../test-support/fakes/openai-fake.ts';
import { waitFor } from '../test-support/wait-for.ts';

let ctx: TestContext;
let upstream: FakeProviderServer;
let base: string;
let owner: string;
let slug: string;

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

beforeAll(async () => {
  upstream = await startOpenAIFake();
  ctx = await createTestContext({ OPENAI_BASE_URL: upstream.baseUrl, OPENAI_API_KEY: 'sk-x', PROVIDER_TIMEOUT_MS: '10000' });
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  owner = await ctx.tokenFor('files-owner');
  const created = await fetch(`${base}/api/app/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Vision', type: 'prompt', visibility: 'public' }),
  });
  slug = (await created.json()).slug;
  await fetch(`${base}/api/app/${slug}/update_status/`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' },
    body: JSON.stringify({ status: 'live' }),
  });
});
afterAll(async () => {
  await ctx?.close();
  await upstream?.close();
});
beforeEach(() => upstream.resetBehaviour());

const upload = (name: string, content: Buffer, token = owner) => {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(content)]), name);
  return fetch(`${base}/api/app/${slug}/file-upload/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
};

describe('file upload', () => {
  it('stores an image and answers its description; the image reaches the model in a call', async () => {
    const response = await upload('pixel.png', PNG);
    expect(response.status).toBe(201);
    const file = await response.json();
    expect(file).toMatchObject({ name: 'pixel.png', size: PNG.length, extension: 'png', mime_type: 'image/png', created_by: expect.any(String) });
    const call = await fetch(`${base}/api/app/${slug}/completion-messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: { query: 'What is this?' }, files: [{ type: 'image', transfer_method: 'local_file', upload_file_id: file.id }] }),
    });
    expect(call.status).toBe(200);
    const sent = upstream.lastRequest().body as { messages: { role: string; content: unknown }[] };
    const user = sent.messages.at(-1)!.content as { type: string; image_url?: { url: string } }[];
    expect(user.find((part) => part.type === 'image_url')?.image_url?.url).toBe(`data:image/png;base64,${PNG.toString('base64')}`);
  });

  it('answers 415 for an unsupported type and 413 above 15 MB', async () => {
    const exe = await upload('tool.exe', Buffer.from('MZ'));
    expect(exe.status).toBe(415);
    expect(await exe.json()).toMatchObject({ code: 'unsupported_media_type', status: 415 });
    const big = await upload('big.txt', Buffer.alloc(15 * 1024 * 1024 + 1, 97));
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ code: 'payload_too_large', status: 413 });
  });

  it('refuses a file another user uploaded', async () => {
    const other = await ctx.tokenFor('files-other');
    const theirs = await (await upload('mine.png', PNG, other)).json();
    const call = await fetch(`${base}/api/app/${slug}/completion-messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: { query: 'x' }, files: [{ type: 'image', transfer_method: 'local_file', upload_file_id: theirs.id }] }),
    });
    expect(call.status).toBe(400);
    expect((await call.json()).params).toBe('files.0.upload_file_id');
  });
});

describe('output schema', () => {
  it('asks for JSON matching the schema; a non-matching answer is a failed, uncharged call', async () => {
    const created = await fetch(`${base}/api/app/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Structured', type: 'prompt', visibility: 'public' }),
    });
    const structured = (await created.json()).slug;
    const outputSchema = {
      type: 'object',
      properties: { sentiment: { type: 'string', enum: ['positive', 'negative'] } },
      required: ['sentiment'],
      additionalProperties: false,
    };
    await fetch(`${base}/api/app/${structured}/prompt/`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ output_schema: outputSchema }),
    });
    await fetch(`${base}/api/app/${structured}/update_status/`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'live' }),
    });
    const consumer = await ctx.tokenFor('structured-consumer');
    const callIt = () =>
      fetch(`${base}/api/app/${structured}/completion-messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${consumer}`, 'content-type': 'application/json' },
        body: JSON.stringify({ inputs: { query: 'I love it' } }),
      });
    upstream.setBehaviour({ text: '{"sentiment":"positive"}' });
    const good = await callIt();
    expect(good.status).toBe(200);
    const request = upstream.lastRequest().body as { response_format: { type: string; json_schema: { schema: unknown } } };
    expect(request.response_format.type).toBe('json_schema');
    expect(request.response_format.json_schema.schema).toEqual(outputSchema);
    upstream.setBehaviour({ text: '{"sentiment":"meh"}' });
    const bad = await callIt();
    expect(bad.status).toBe(502);
    const { rows } = await ctx.database.db.query<{ status: string; error_type: string; price_cents: number }>(
      'SELECT i.status, i.error_type, i.price_cents FROM invocations i JOIN apps a ON a.id = i.app_id WHERE a.slug = $1 ORDER BY i.created_at',
      [structured],
    );
    expect(rows).toEqual([
      { status: 'success', error_type: '', price_cents: 100 },
      { status: 'error', error_type: 'output_schema_mismatch', price_cents: 0 },
    ]);
    const balance = await (await fetch(`${base}/api/billing/balance/`, { headers: { authorization: `Bearer ${consumer}` } })).json();
    expect(balance.credits_cents).toBe(400);
  });
});

const balanceOf = async (subject: string) => {
  const token = await ctx.tokenFor(subject);
  return (await (await fetch(`${base}/api/billing/balance/`, { headers: { authorization: `Bearer ${token}` } })).json()).credits_cents as number;
};

const holdsOf = async (subject: string) =>
  (
    await ctx.database.db.query(
      'SELECT 1 FROM credit_holds h JOIN ledger_accounts a ON a.id = h.account_id JOIN users u ON u.id = a.user_id WHERE u.subject = $1 AND h.amount_cents > 0',
      [subject],
    )
  ).rows.length;

const startStream = async (subject: string, body: object, signal: AbortSignal) =>
  fetch(`${base}/api/app/${slug}/completion-messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await ctx.tokenFor(subject)}`, 'content-type': 'application/json' },
    body: JSON.stringify({ inputs: { query: 'long answer please' }, response_mode: 'streaming', ...body }),
    signal,
  });

describe('the streaming charge rule', () => {
  it('charges a caller who hangs up once part of the answer was sent, and aborts the upstream', async () => {
    upstream.setBehaviour({ text: Array.from({ length: 40 }, (_, i) => `word${i}`).join(' '), chunkDelayMs: 50 });
    const before = upstream.requests.length;
    const abort = new AbortController();
    const response = await startStream('stream-quitter', {}, abort.signal);
    const first = await response.body!.getReader().read();
    expect(new TextDecoder().decode(first.value)).toContain('"event":"message"');
    abort.abort();
    await upstream.requests[before]!.closed;
    expect(upstream.requests[before]!.aborted).toBe(true);
    const row = await waitFor(async () => {
      const { rows } = await ctx.database.db.query<{ status: string; price_cents: number }>(
        "SELECT i.status, i.price_cents FROM invocations i JOIN users u ON u.id = i.caller_id WHERE u.subject = 'stream-quitter'",
      );
      return rows[0] ?? null;
    });
    expect(row).toEqual({ status: 'success', price_cents: 100 });
    expect(await balanceOf('stream-quitter')).toBe(400);
    await waitFor(async () => ((await holdsOf('stream-quitter')) === 0 ? true : null));
  });

  it('charges every caller who hangs up between the text and message_end (20 of 20, usage 300 ms or 20 ms late)', async () => {
    const subjects: string[] = [];
    for (const [index, lateMs] of [300, 20].entries()) {
      upstream.setBehaviour({ text: 'All the text at once.', chunks: (text) => [text], chunkDelayMs: lateMs });
      await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const subject = `late-usage-${index}-${i}`;
          subjects.push(subject);
          const abort = new AbortController();
          const response = await startStream(subject, {}, abort.signal);
          const reader = response.body!.getReader();
          let seen = '';
          while (!seen.includes('"event":"message"')) seen += new TextDecoder().decode((await reader.read()).value);
          abort.abort();
        }),
      );
    }
    let free = 0;
    for (const subject of subjects) {
      const balance = await waitFor(async () => {
        const value = await balanceOf(subject);
        return value === 500 && (await holdsOf(subject)) > 0 ? null : value;
      });
      if (balance === 500) free++;
    }
    expect(free).toBe(0);
  });

  it('is free, and aborts the upstream, when the caller hangs up before the first chunk', async () => {
    upstream.setBehaviour({ delayMs: 2000 });
    const before = upstream.requests.length;
    const abort = new AbortController();
    const response = await startStream('early-quitter', {}, abort.signal);
    expect(response.status).toBe(200);
    await waitFor(async () => (upstream.requests[before] ? true : null));
    abort.abort();
    await upstream.requests[before]!.closed;
    expect(upstream.requests[before]!.aborted).toBe(true);
    const { rows } = await waitFor(async () => {
      const found = await ctx.database.db.query(
        "SELECT i.status, i.error_type, i.price_cents FROM invocations i JOIN users u ON u.id = i.caller_id WHERE u.subject = 'early-quitter'",
      );
      return found.rows.length > 0 ? found : null;
    });
    expect(rows).toEqual([{ status: 'error', error_type: 'client_disconnected', price_cents: 0 }]);
    expect(await balanceOf('early-quitter')).toBe(500);
    await waitFor(async () => ((await holdsOf('early-quitter')) === 0 ? true : null));
  });

  it('is free when the provider fails after part of the answer was sent', async () => {
    upstream.setBehaviour({ text: 'one two three four five six', chunkDelayMs: 50, cutStreamAfterChunks: 2 });
    const response = await startStream('provider-cut', {}, new AbortController().signal);
    const text = await response.text();
    expect(text).toContain('"event":"message"');
    expect(text).toContain('"event":"error"');
    expect(await balanceOf('provider-cut')).toBe(500);
  });
});

describe('text PostgreSQL cannot store', () => {
  it('is refused with 400 before any answer, streaming or blocking (40 of 40), and nothing is free', async () => {
    const bodies = [
      { user: 'a\u0000b' },
      { inputs: { query: 'nul \u0000 here' } },
      { user: 'lone \uD800 surrogate' },
      { inputs: { query: 'lone \uDC00 low' } },
    ];
    let refused = 0;
    for (let i = 0; i < 10; i++) {
      for (const [index, body] of bodies.entries()) {
        const response = await fetch(`${base}/api/app/${slug}/completion-messages`, {
          method: 'POST',
          headers: { authorization: `Bearer ${await ctx.tokenFor('nul-caller')}`, 'content-type': 'application/json' },
          body: JSON.stringify({ inputs: { query: 'x' }, response_mode: index % 2 ? 'streaming' : 'blocking', ...body }),
        });
        if (response.status === 400) refused++;
        const error = await response.json();
        expect(error.code).toBe('invalid_param');
        expect(['user', 'inputs.query']).toContain(error.params);
      }
    }
    expect(refused).toBe(40);
    const chat = await fetch(`${base}/api/app/${slug}/chat-messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await ctx.tokenFor('nul-caller')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: {}, query: 'hi\u0000', response_mode: 'streaming' }),
    });
    expect(chat.status).toBe(400);
    expect((await chat.json()).params).toBe('query');
    expect(await balanceOf('nul-caller')).toBe(500);
  });

  it('a long end-user id cut in the middle of an emoji still settles', async () => {
    const response = await fetch(`${base}/api/app/${slug}/completion-messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await ctx.tokenFor('emoji-caller')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: { query: 'x' }, user: `${'a'.repeat(199)}😀` }),
    });
    expect(response.status).toBe(200);
    expect(await balanceOf('emoji-caller')).toBe(400);
  });
});
