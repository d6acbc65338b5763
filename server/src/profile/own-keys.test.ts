// Bring your own key (issue 22 item 6): a creator's own provider keys in their profile,
// sealed at rest and masked, Test Connection against a real (fake) upstream, the workflow URLs'
// private-address rule, and prompt apps on "my own key" whose every model call — Dify-compatible
// completion and chat (dify-client), /v1/chat/completions (openai SDK), /v1/invoke and Test Prompt
// — goes to the creator's upstream with the creator's key while the operator's upstream sees nothing.
import type { AddressInfo } from 'node:net';
import { ChatClient, CompletionClient } from 'dify-client';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { encryptSecret } from '../crypto/secrets.ts';
import { createTestContext, TEST_SECRET_KEY, type TestContext } from '../test-support/app.ts';
import { type FakeProviderServer, header } from '../test-support/fakes/http-fake.ts';
import { startOpenAIFake } from '../test-support/fakes/openai-fake.ts';

vi.setConfig({ testTimeout: 120_000 });

const OPERATOR_KEY = 'sk-operator-platform-key';
const CREATOR_KEY = 'sk-creator-own-key-1234';
const CREATOR_KEY_2 = 'sk-creator-rotated-key-9876';

let ctx: TestContext;
let operator: FakeProviderServer;
let creatorUpstream: FakeProviderServer;
let base: string;
let ownerToken: string;

beforeAll(async () => {
  [operator, creatorUpstream] = await Promise.all([startOpenAIFake({ apiKey: OPERATOR_KEY }), startOpenAIFake()]);
  ctx = await createTestContext({
    OPENAI_BASE_URL: operator.baseUrl,
    OPENAI_API_KEY: OPERATOR_KEY,
    RATE_LIMIT_PER_MINUTE: '100000',
    ALLOW_PRIVATE_PROVIDER_URLS: 'on',
  });
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  ownerToken = await ctx.tokenFor('own-key-owner');
}, 180_000);
afterAll(async () => {
  await ctx?.close();
  await operator?.close();
  await creatorUpstream?.close();
});
beforeEach(() => {
  operator.resetBehaviour();
  creatorUpstream.resetBehaviour();
});

const api = async (method: string, path: string, token: string, body?: object) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json().catch(() => null)) as Record<string, unknown> & { slug: string } };
};

let appCounter = 0;
async function promptApp(mode: 'completion' | 'chat' = 'completion') {
  const created = await api('POST', '/api/app/', ownerToken, {
    name: `Own-key App ${++appCounter}`,
    type: 'prompt',
    visibility: 'public',
    price_cents: 3,
    interaction_mode: mode,
  });
  expect(created.status).toBe(201);
  expect((await api('PATCH', `/api/app/${created.body.slug}/update_status/`, ownerToken, { status: 'live' })).status).toBe(200);
  return created.body.slug;
}

async function newCaller(subject: string) {
  const token = await ctx.tokenFor(subject);
  const key = await api('POST', '/api/keys/', token, { name: 'own-key caller' });
  expect(key.status).toBe(201);
  return key.body.key as string;
}

/** The requests each upstream received since `marks` (counts taken before the calls). */
const since = (marks: { operator: number; creator: number }) => ({
  operator: operator.requests.slice(marks.operator),
  creator: creatorUpstream.requests.slice(marks.creator),
});
const mark = () => ({ operator: operator.requests.length, creator: creatorUpstream.requests.length });

describe('own provider credentials in the profile', () => {
  it('stores the key sealed, shows it masked, and checks every field', async () => {
    const token = await ctx.tokenFor('own-key-profile');
    expect((await api('GET', '/api/profile/provider-keys/', token)).body).toEqual({ results: [] });

    const saved = await api('PUT', '/api/profile/provider-keys/openai/', token, { base_url: `${creatorUpstream.baseUrl}/`, api_key: CREATOR_KEY });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ kind: 'openai', base_url: creatorUpstream.baseUrl, api_key_masked: '••••••••1234' });
    expect(JSON.stringify((await api('GET', '/api/profile/provider-keys/', token)).body)).not.toContain(CREATOR_KEY);

    const { rows } = await ctx.database.db.query<{ api_key_encrypted: string }>(
      "SELECT api_key_encrypted FROM provider_credentials p JOIN users u ON u.id = p.user_id WHERE u.subject = 'own-key-profile'",
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.api_key_encrypted).toMatch(/^v1\./);
    expect(rows[0]!.api_key_encrypted).not.toContain('1234');

    // Changing only the base URL keeps the key.
    const moved = await api('PUT', '/api/profile/provider-keys/openai/', token, { base_url: 'https://llm.example.com/v1' });
    expect(moved.body).toMatchObject({ base_url: 'https://llm.example.com/v1', api_key_masked: '••••••••1234' });

    expect(await api('PUT', '/api/profile/provider-keys/anthropic/', token, {})).toMatchObject({
      status: 400,
      body: { code: 'invalid_param', params: 'api_key' },
    });
    expect(await api('PUT', '/api/profile/provider-keys/anthropic/', token, { api_key: 'sk-ant', base_url: 'https://x.example.com' })).toMatchObject({
      status: 400,
      body: { params: 'base_url' },
    });
    expect(await api('PUT', '/api/profile/provider-keys/gemini/', token, { api_key: '   ' })).toMatchObject({ status: 400, body: { params: 'api_key' } });
    expect(await api('PUT', '/api/profile/provider-keys/mistral/', token, { api_key: 'x' })).toMatchObject({ status: 400 });
    const other = await ctx.tokenFor('own-key-profile-2');
    expect(await api('PUT', '/api/profile/provider-keys/openai/', other, { api_key: 'sk-x' })).toMatchObject({ status: 400, body: { params: 'base_url' } });
    expect(await api('PUT', '/api/profile/provider-keys/openai/', other, { api_key: 'sk-x', base_url: 'ftp://x' })).toMatchObject({
      status: 400,
      body: { params: 'base_url' },
    });

    expect((await api('PUT', '/api/profile/provider-keys/anthropic/', token, { api_key: 'sk-ant-api03-abcdWXYZ' })).body).toMatchObject({
      kind: 'anthropic',
      base_url: null,
      api_key_masked: '••••••••WXYZ',
    });
    expect(((await api('GET', '/api/profile/provider-keys/', token)).body.results as { kind: string }[]).map((row) => row.kind)).toEqual([
      'anthropic',
      'openai',
    ]);
    expect((await api('DELETE', '/api/profile/provider-keys/anthropic/', token)).status).toBe(204);
    expect((await api('DELETE', '/api/profile/provider-keys/anthropic/', token)).status).toBe(404);
    // Another user sees none of it.
    expect((await api('GET', '/api/profile/provider-keys/', other)).body).toEqual({ results: [] });
  });

  it('Test Connection asks the creator’s upstream for one token with their key', async () => {
    const token = await ctx.tokenFor('own-key-tester');
    const keyed = await startOpenAIFake({ apiKey: CREATOR_KEY });
    try {
      const before = mark();
      const unsaved = await api('POST', '/api/profile/provider-keys/openai/test/', token, { base_url: keyed.baseUrl, api_key: CREATOR_KEY });
      expect(unsaved.body).toMatchObject({ success: true, model: 'gpt-4-turbo' });
      expect(keyed.lastRequest().body).toMatchObject({ max_tokens: 1 });
      expect(header(keyed.lastRequest(), 'authorization')).toBe(`Bearer ${CREATOR_KEY}`);

      const wrong = await api('POST', '/api/profile/provider-keys/openai/test/', token, { base_url: keyed.baseUrl, api_key: 'sk-wrong-key-0000' });
      expect(wrong.status).toBe(200);
      expect(wrong.body.success).toBe(false);
      expect(wrong.body.message).toContain('401');
      expect(wrong.body.message).not.toContain('sk-wrong-key-0000');

      // Nothing stored yet: the stored credential cannot be tested.
      expect(await api('POST', '/api/profile/provider-keys/openai/test/', token, {})).toMatchObject({ status: 400, body: { params: 'base_url' } });
      await api('PUT', '/api/profile/provider-keys/openai/', token, { base_url: keyed.baseUrl, api_key: CREATOR_KEY });
      expect((await api('POST', '/api/profile/provider-keys/openai/test/', token, {})).body).toMatchObject({ success: true });
      expect(since(before).operator).toEqual([]);
    } finally {
      await keyed.close();
    }
  });

  it('refuses private and loopback base URLs unless ALLOW_PRIVATE_PROVIDER_URLS is on', async () => {
    const strict = await createTestContext({ OPENAI_API_KEY: OPERATOR_KEY, OPENAI_BASE_URL: operator.baseUrl });
    try {
      const token = await strict.tokenFor('own-key-strict');
      const put = (body: object) =>
        strict.app.inject({ method: 'PUT', url: '/api/profile/provider-keys/openai/', headers: { authorization: `Bearer ${token}` }, payload: body });
      for (const url of [creatorUpstream.baseUrl, 'http://169.254.169.254/v1', 'http://[::1]:8080/v1', 'http://2130706433/v1', 'http://10.0.0.7/v1']) {
        const refused = await put({ base_url: url, api_key: CREATOR_KEY });
        expect(refused.statusCode, url).toBe(400);
        expect(refused.json()).toMatchObject({ code: 'invalid_param', params: 'base_url' });
      }
      const tested = await strict.api('POST', '/api/profile/provider-keys/openai/test/', token, { base_url: creatorUpstream.baseUrl, api_key: CREATOR_KEY });
      expect(tested.statusCode).toBe(400);
      expect((await put({ base_url: 'https://api.openai.com/v1', api_key: CREATOR_KEY })).statusCode).toBe(200);
    } finally {
      await strict.close();
    }
  });
});

describe('a prompt app on the creator’s own key', () => {
  it('cannot choose its own key before the creator added one for its model’s provider', async () => {
    const token = await ctx.tokenFor('own-key-nokey');
    const created = await api('POST', '/api/app/', token, { name: 'No key yet', type: 'prompt', price_cents: 1 });
    const refused = await api('PATCH', `/api/app/${created.body.slug}/prompt/`, token, { key_source: 'own' });
    expect(refused).toMatchObject({ status: 400, body: { code: 'invalid_param', params: 'key_source' } });
    expect(refused.body.message).toContain('OpenAI-compatible');
    expect((await api('GET', `/api/app/${created.body.slug}/prompt/`, token)).body.key_source).toBe('platform');
  });

  it('sends every call path to the creator’s upstream with the creator’s key; the operator’s upstream sees no request', async () => {
    await api('PUT', '/api/profile/provider-keys/openai/', ownerToken, { base_url: creatorUpstream.baseUrl, api_key: CREATOR_KEY });
    const slug = await promptApp();
    const chatSlug = await promptApp('chat');
    for (const app of [slug, chatSlug]) {
      const set = await api('PATCH', `/api/app/${app}/prompt/`, ownerToken, { key_source: 'own' });
      expect(set.status).toBe(200);
      expect(set.body.key_source).toBe('own');
    }
    const callerKey = await newCaller('own-key-caller');
    creatorUpstream.setBehaviour({ text: 'Answered on the creator’s key.' });
    const before = mark();
    const modelCosts = async () =>
      Number((await ctx.database.db.query("SELECT balance_cents FROM ledger_accounts WHERE kind = 'model_costs'")).rows[0]!.balance_cents);
    const ownerCredits = async () => (await api('GET', '/api/billing/balance/', ownerToken)).body.credits_cents as number;
    const [modelCostsBefore, ownerCreditsBefore] = [await modelCosts(), await ownerCredits()];

    // Dify-compatible completion and chat, blocking and streaming, through dify-client.
    const completion = new CompletionClient(callerKey, `${base}/api/app/${slug}`);
    const blocking = await completion.createCompletionMessage({ query: 'owls' }, 'end-user-1');
    expect(blocking.data.answer).toBe('Answered on the creator’s key.');
    const streamed = await completion.createCompletionMessage({ query: 'owls, streamed' }, 'end-user-1', true);
    for await (const _chunk of streamed.data) {
      // drain
    }
    const chat = await new ChatClient(callerKey, `${base}/api/app/${chatSlug}`).createChatMessage({}, 'Hello owls', 'end-user-2');
    expect(chat.data.answer).toBe('Answered on the creator’s key.');

    // The OpenAI-compatible endpoint through the openai SDK, blocking and streaming.
    const openai = new OpenAI({ apiKey: callerKey, baseURL: `${base}/v1`, maxRetries: 0 });
    const answer = await openai.chat.completions.create({ model: slug, messages: [{ role: 'user', content: 'owls via openai' }] });
    expect(answer.choices[0]!.message.content).toBe('Answered on the creator’s key.');
    const stream = await openai.chat.completions.create({ model: chatSlug, messages: [{ role: 'user', content: 'stream' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Answered on the creator’s key.');

    // /v1/invoke.
    const invoked = await fetch(`${base}/v1/invoke/${slug}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${callerKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'invoke owls' }),
    });
    expect(invoked.status).toBe(200);

    // Test Prompt on the saved app, and the builder's test with key_source own.
    const tested = await api('POST', `/api/app/${slug}/prompt/test-config/`, ownerToken, {
      prompt_template: '{{query}}',
      test_inputs: { query: 'x' },
      run: true,
    });
    expect(tested.body).toMatchObject({ success: true, answer: 'Answered on the creator’s key.' });
    const builder = await api('POST', '/api/prompt/test-config/', ownerToken, { prompt_template: 'Hi', run: true, key_source: 'own' });
    expect(builder.body).toMatchObject({ success: true, answer: 'Answered on the creator’s key.' });

    // The creator pays their own provider: no model cost is posted, and their test runs cost them no credits (decision 0025).
    expect(await modelCosts()).toBe(modelCostsBefore);
    expect(await ownerCredits()).toBe(ownerCreditsBefore);
    const costs = await ctx.database.db.query(
      'SELECT coalesce(sum(model_cost_micros), 0)::int AS micros FROM invocations i JOIN apps a ON a.id = i.app_id WHERE a.slug = ANY($1)',
      [[slug, chatSlug]],
    );
    expect(costs.rows[0]).toEqual({ micros: 0 });
    const seen = since(before);
    expect(seen.operator).toEqual([]);
    expect(seen.creator).toHaveLength(8);
    for (const request of seen.creator) {
      expect(request.path).toBe('/v1/chat/completions');
      expect(header(request, 'authorization')).toBe(`Bearer ${CREATOR_KEY}`);
    }

    // The same app back on the platform's models calls the operator's upstream with the operator's key.
    await api('PATCH', `/api/app/${slug}/prompt/`, ownerToken, { key_source: 'platform' });
    const platformMark = mark();
    expect((await completion.createCompletionMessage({ query: 'platform' }, 'end-user-1')).status).toBe(200);
    expect(since(platformMark).creator).toEqual([]);
    expect(header(operator.lastRequest(), 'authorization')).toBe(`Bearer ${OPERATOR_KEY}`);
  });

  it('uses a rotated key at once, and refuses calls when the creator removed their key', async () => {
    const token = await ctx.tokenFor('own-key-rotator');
    await api('PUT', '/api/profile/provider-keys/openai/', token, { base_url: creatorUpstream.baseUrl, api_key: CREATOR_KEY });
    const created = await api('POST', '/api/app/', token, { name: 'Rotating', type: 'prompt', visibility: 'public', price_cents: 1 });
    const slug = created.body.slug;
    await api('PATCH', `/api/app/${slug}/prompt/`, token, { key_source: 'own' });
    await api('PATCH', `/api/app/${slug}/update_status/`, token, { status: 'live' });
    const callerKey = await newCaller('own-key-rotation-caller');
    const call = () =>
      fetch(`${base}/v1/invoke/${slug}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${callerKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'rotate' }),
      });

    expect((await call()).status).toBe(200);
    expect(header(creatorUpstream.lastRequest(), 'authorization')).toBe(`Bearer ${CREATOR_KEY}`);
    await api('PUT', '/api/profile/provider-keys/openai/', token, { api_key: CREATOR_KEY_2 });
    expect((await call()).status).toBe(200);
    expect(header(creatorUpstream.lastRequest(), 'authorization')).toBe(`Bearer ${CREATOR_KEY_2}`);

    // A change made by another process (here: straight in the database) reaches this process's cache through NOTIFY.
    const sealed = encryptSecret(Buffer.from(TEST_SECRET_KEY, 'hex'), 'sk-changed-elsewhere-4242');
    await ctx.database.db.query(
      "UPDATE provider_credentials SET api_key_encrypted = $1 WHERE kind = 'openai' AND user_id = (SELECT id FROM users WHERE subject = 'own-key-rotator')",
      [sealed],
    );
    await expect
      .poll(async () => {
        expect((await call()).status).toBe(200);
        return header(creatorUpstream.lastRequest(), 'authorization');
      })
      .toBe('Bearer sk-changed-elsewhere-4242');

    const before = mark();
    await api('DELETE', '/api/profile/provider-keys/openai/', token);
    const refused = await call();
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'app_unavailable' });
    expect(since(before)).toEqual({ operator: [], creator: [] });
  });
});
