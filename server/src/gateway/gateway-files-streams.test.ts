// Real sockets: uploads in multipart, output-schema enforcement, and a client that goes away
// mid-stream (which app.inject cannot simulate).
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../test-support/app.ts';
import type { FakeProviderServer } from '../test-support/fakes/http-fake.ts';
import { startOpenAIFake } from '../test-support/fakes/openai-fake.ts';

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

describe('a client that disconnects mid-stream', () => {
  it('aborts the upstream call and is not charged', async () => {
    const consumer = await ctx.tokenFor('stream-quitter');
    upstream.setBehaviour({ text: Array.from({ length: 40 }, (_, i) => `word${i}`).join(' '), chunkDelayMs: 50 });
    const before = upstream.requests.length;
    const abort = new AbortController();
    const response = await fetch(`${base}/api/app/${slug}/completion-messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${consumer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: { query: 'long answer please' }, response_mode: 'streaming' }),
      signal: abort.signal,
    });
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('"event":"message"');
    abort.abort();
    await upstream.requests[before]!.closed;
    expect(upstream.requests[before]!.aborted).toBe(true);
    // The failure is recorded once the gateway notices; then the credits are whole.
    for (let i = 0; i < 50; i++) {
      const { rows } = await ctx.database.db.query("SELECT error_type FROM invocations WHERE error_type = 'client_disconnected'");
      if (rows.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const { rows } = await ctx.database.db.query("SELECT status, price_cents FROM invocations WHERE error_type = 'client_disconnected'");
    expect(rows).toEqual([{ status: 'error', price_cents: 0 }]);
    const balance = await (await fetch(`${base}/api/billing/balance/`, { headers: { authorization: `Bearer ${consumer}` } })).json();
    expect(balance.credits_cents).toBe(500);
    const holds = await ctx.database.db.query(
      "SELECT 1 FROM credit_holds h JOIN ledger_accounts a ON a.id = h.account_id JOIN users u ON u.id = a.user_id WHERE u.subject = 'stream-quitter'",
    );
    expect(holds.rows).toEqual([]);
  });
});
