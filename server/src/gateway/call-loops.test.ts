// Issue 24, item 3: a workflow app pointed at Tollbooth's own Dify-compatible API called itself
// (1 request, 407 nested calls in 5 s). Provider URLs that are this server are refused when saved
// and when connecting; every upstream request carries the Tollbooth-Hop chain, and a call that
// comes back through it (same server, same credentials, or too deep) is refused with 508 call_loop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CALL_DEPTH } from '../http/call-chain.ts';
import { listenOnLoopback } from '../test-support/app.ts';
import { createDifyTestContext } from '../test-support/dify-app.ts';
import { sendRequest } from '../test-support/server-process.ts';

const KEY = 'app-loopDifyKey';
const ctx = await createDifyTestContext({ PUBLIC_URL: 'https://tollbooth.loop.test', RATE_LIMIT_PER_MINUTE: '100000' }, { apiKey: KEY });
const { dify } = ctx;
const base = await listenOnLoopback(ctx.app);
const port = Number(new URL(base).port);
const owner = await ctx.tokenFor('loop-owner');
afterAll(() => ctx.close());

const request = (method: string, path: string, token: string, body?: object, headers: Record<string, string> = {}) =>
  sendRequest(base, method, path, token, body, { headers });

const createWorkflowApp = (baseUrl: string) =>
  request('POST', '/api/app/', owner, {
    name: 'Loop',
    type: 'workflow',
    visibility: 'public',
    price_cents: 1,
    provider_config: { app_id: 'dify-app', api_key: KEY, base_url: baseUrl },
  });

describe('provider URLs that are this server', () => {
  it('are refused when saved, even with ALLOW_PRIVATE_PROVIDER_URLS: its listening address, a name for it, its PUBLIC_URL', async () => {
    for (const url of [`${base}/api/app/some-app`, `http://localhost:${port}/api/app/some-app`, 'https://tollbooth.loop.test/api/app/some-app']) {
      const created = await createWorkflowApp(url);
      expect(created.status, url).toBe(400);
      const body = await created.json();
      expect(body).toMatchObject({ code: 'invalid_param', params: 'provider_config.base_url' });
      expect(body.message).toMatch(/this Tollbooth server itself/);
    }
    // The same host on another port is another server (here the Dify fake).
    expect((await createWorkflowApp(dify.baseUrl)).status).toBe(201);
  });

  it('are refused when connecting (a URL saved before, or a name that now resolves here): no nested call is made', async () => {
    const created = await createWorkflowApp(dify.baseUrl);
    const { slug } = await created.json();
    await request('PATCH', `/api/app/${slug}/workflow/`, owner, {});
    await request('PATCH', `/api/app/${slug}/update_status/`, owner, { status: 'live' });
    const ownUrl = `http://localhost:${port}/api/app/${slug}`;
    await ctx.database.db.query(`UPDATE apps SET provider_config = provider_config || jsonb_build_object('base_url', $2::text) WHERE slug = $1`, [
      slug,
      ownUrl,
    ]);
    await ctx.database.db.query(
      `UPDATE workflow_versions SET provider_config = provider_config || jsonb_build_object('base_url', $2::text) WHERE app_id = (SELECT id FROM apps WHERE slug = $1)`,
      [slug, ownUrl],
    );
    await new Promise((resolve) => setTimeout(resolve, 1100));
    let nested = 0;
    const onRequest = (incoming: { url?: string }) => {
      if (incoming.url?.includes('/chat-messages')) nested++;
    };
    ctx.app.server.on('request', onRequest);
    const caller = await ctx.tokenFor('loop-caller');
    const answer = await request('POST', `/api/app/${slug}/chat-messages`, caller, { inputs: {}, query: 'hi', response_mode: 'blocking', user: 'u' });
    ctx.app.server.off('request', onRequest);
    expect(answer.status).toBe(400);
    expect((await answer.json()).message).toMatch(/this Tollbooth server itself/);
    expect(nested).toBe(1);
  });
});

describe('the Tollbooth-Hop chain', () => {
  let slug: string;
  let ownHop: string;
  beforeAll(async () => {
    const created = await createWorkflowApp(dify.baseUrl);
    slug = (await created.json()).slug;
    await request('PATCH', `/api/app/${slug}/workflow/`, owner, {});
    await request('PATCH', `/api/app/${slug}/update_status/`, owner, { status: 'live' });
  });

  const chat = (token: string, headers: Record<string, string> = {}) =>
    request('POST', `/api/app/${slug}/chat-messages`, token, { inputs: {}, query: 'hi', response_mode: 'blocking', user: 'u' }, headers);

  it('is sent on every upstream request', async () => {
    const caller = await ctx.tokenFor('hop-caller');
    const answer = await chat(caller);
    expect(answer.status).toBe(200);
    const hop = dify.lastRequest().headers['tollbooth-hop'];
    expect(hop).toMatch(/^[\w-]+\.[\w-]+$/);
    ownHop = hop as string;
    // /info and /parameters (the app's settings check) carry it too.
    expect(dify.requests.filter((sent) => sent.path.endsWith('/info')).every((sent) => typeof sent.headers['tollbooth-hop'] === 'string')).toBe(true);
  });

  it('refuses a call that comes back to this server, with 508 call_loop, before anything is charged or called', async () => {
    const caller = await ctx.tokenFor('hop-caller-2');
    const before = dify.requests.length;
    const answer = await chat(caller, { 'tollbooth-hop': ownHop });
    expect(answer.status).toBe(508);
    expect(await answer.json()).toMatchObject({ code: 'call_loop', status: 508 });
    expect(dify.requests.length).toBe(before);
    // The same on the OpenAI-compatible API.
    const openai = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${caller}`, 'content-type': 'application/json', 'tollbooth-hop': `x1.y1, ${ownHop}` },
      body: JSON.stringify({ model: slug, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(openai.status).toBe(508);
  });

  it('refuses the same credentials inside their own call, through another server', async () => {
    const caller = await ctx.tokenFor('hop-caller-3');
    await chat(caller);
    const callerTag = (dify.lastRequest().headers['tollbooth-hop'] as string).split('.')[1];
    const answer = await chat(caller, { 'tollbooth-hop': `otherserver1.${callerTag}` });
    expect(answer.status).toBe(508);
    expect((await answer.json()).message).toMatch(/same credentials/);
    // Another caller's chain through another server is fine, and the chain grows by this hop.
    const other = await ctx.tokenFor('hop-caller-4');
    const passed = await chat(other, { 'tollbooth-hop': `otherserver1.${callerTag}` });
    expect(passed.status).toBe(200);
    const forwarded = (dify.lastRequest().headers['tollbooth-hop'] as string).split(', ');
    expect(forwarded).toHaveLength(2);
    expect(forwarded[0]).toBe(`otherserver1.${callerTag}`);
  });

  it('goes with the request down every path to the provider: settings checks, Dify and OpenAI calls, blocking and streamed, files, workflows/run', async () => {
    // Without AsyncLocalStorage the chain is passed down by hand (decision 0044): a path that forgot
    // it would send the background chain ("internal.internal") or none.
    const caller = await ctx.tokenFor('hop-caller-6');
    const incoming = 'otherserver2.othercaller2';
    const hop = { 'tollbooth-hop': incoming };
    const server = ownHop.split('.')[0];
    const from = dify.requests.length;
    const sent = async (label: string, response: Promise<Response>) => {
      const answer = await response;
      expect(answer.status, `${label}: ${await answer.text()}`).toBe(200);
    };
    await sent('settings check', request('POST', `/api/app/${slug}/workflow/test-config/`, owner, { provider_config: {} }, hop));
    await sent('settings save', request('PATCH', `/api/app/${slug}/workflow/`, owner, { timeout_seconds: 60 }, hop));
    await sent('Dify chat, blocking', chat(caller, hop));
    await sent(
      'Dify chat, streamed',
      request('POST', `/api/app/${slug}/chat-messages`, caller, { inputs: {}, query: 'hi', response_mode: 'streaming', user: 'u' }, hop),
    );
    const openai = (stream: boolean) =>
      fetch(`${base}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${caller}`, 'content-type': 'application/json', ...hop },
        body: JSON.stringify({ model: slug, messages: [{ role: 'user', content: 'hi' }], stream }),
      });
    await sent('OpenAI chat completion, blocking', openai(false));
    await sent('OpenAI chat completion, streamed', openai(true));
    const form = new FormData();
    form.append('file', new Blob(['notes'], { type: 'text/plain' }), 'notes.txt');
    const uploaded = await fetch(`${base}/api/app/${slug}/file-upload/`, { method: 'POST', headers: { authorization: `Bearer ${caller}` }, body: form });
    expect(uploaded.status).toBe(201);
    const file = (await uploaded.json()) as { id: string };
    const files = [{ type: 'document', transfer_method: 'local_file', upload_file_id: file.id }];
    await sent(
      'a call with a file',
      request('POST', `/api/app/${slug}/chat-messages`, caller, { inputs: {}, query: 'hi', response_mode: 'blocking', user: 'u', files }, hop),
    );
    let to = 0;
    try {
      dify.app.mode = 'workflow';
      await sent('settings save of a workflow-mode app', request('PATCH', `/api/app/${slug}/workflow/`, owner, { timeout_seconds: 61 }, hop));
      await sent('workflows/run', request('POST', `/api/app/${slug}/workflows/run`, caller, { inputs: {}, response_mode: 'blocking', user: 'u' }, hop));
    } finally {
      to = dify.requests.length;
      dify.resetApp();
      await request('PATCH', `/api/app/${slug}/workflow/`, owner, { timeout_seconds: 62 });
    }
    const made = dify.requests.slice(from, to);
    const seen = made.map((upstream) => `${upstream.method} ${upstream.path}`);
    for (const path of ['GET /v1/info', 'GET /v1/parameters', 'POST /v1/chat-messages', 'POST /v1/files/upload', 'POST /v1/workflows/run'])
      expect(seen).toContain(path);
    for (const upstream of made) {
      const chain = String(upstream.headers['tollbooth-hop']).split(', ');
      expect(chain, `${upstream.method} ${upstream.path}`).toHaveLength(2);
      expect(chain[0], `${upstream.method} ${upstream.path}`).toBe(incoming);
      expect(chain[1]!.split('.')[0], `${upstream.method} ${upstream.path}`).toBe(server);
    }
  });

  it(`caps the depth at ${MAX_CALL_DEPTH} hops`, async () => {
    const caller = await ctx.tokenFor('hop-caller-5');
    const chain = (n: number) => Array.from({ length: n }, (_, i) => `server${i}.caller${i}`).join(', ');
    expect((await chat(caller, { 'tollbooth-hop': chain(MAX_CALL_DEPTH - 1) })).status).toBe(200);
    const deep = await chat(caller, { 'tollbooth-hop': chain(MAX_CALL_DEPTH) });
    expect(deep.status).toBe(508);
    expect((await deep.json()).message).toMatch(/nested Tollbooth calls/);
  });
});
