import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPaidTestContext, createTestContext, type PaidTestContext, TEST_MODEL_API_KEY } from '../test-support/app.ts';
import type { FakeProviderServer } from '../test-support/fakes/http-fake.ts';
import { expectLedgerBalanced } from '../test-support/ledger.ts';
import { aFreshMinute } from '../test-support/wait-for.ts';

let ctx: PaidTestContext;
let upstream: FakeProviderServer;
let ownerToken: string;
const PRICE = 100;

beforeAll(async () => {
  ctx = await createPaidTestContext({
    // Generous: the 250-request idempotency test must not time out when the machine is busy.
    PROVIDER_TIMEOUT_MS: '60000',
    RATE_LIMIT_PER_MINUTE: '100000',
    PLATFORM_FEE_BPS: '1000',
  });
  upstream = ctx.model;
  ownerToken = await ctx.tokenFor('gateway-owner', { name: 'Creator' });
});
afterAll(() => ctx?.close());
beforeEach(() => upstream.resetBehaviour());

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const api = (method: Method, url: string, token: string, payload?: object, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method, url, headers: { authorization: `Bearer ${token}`, ...headers }, ...(payload ? { payload } : {}) });

let appCounter = 0;
/** A live public prompt app of the owner's, priced PRICE cents. */
async function livePublicApp(overrides: object = {}) {
  const created = await api('POST', '/api/app/', ownerToken, {
    name: `Paid App ${++appCounter}`,
    type: 'prompt',
    visibility: 'public',
    price_cents: PRICE,
    ...overrides,
  });
  expect(created.statusCode).toBe(201);
  const slug = created.json().slug as string;
  await api('PATCH', `/api/app/${slug}/update_status/`, ownerToken, { status: 'live' });
  return slug;
}

let consumerCounter = 0;
/** A new consumer with an API key; the key's owner starts with the sign-up credits (500 cents). */
async function newConsumer(keyOptions: object = {}) {
  const token = await ctx.tokenFor(`consumer-${++consumerCounter}`);
  const created = await api('POST', '/api/keys/', token, { name: 'test key', ...keyOptions });
  expect(created.statusCode).toBe(201);
  return { token, key: created.json().key as string, keyId: created.json().id as string };
}

const callCompletion = (slug: string, key: string, inputs: object = { query: 'Hello?' }, headers: Record<string, string> = {}, extra: object = {}) =>
  ctx.app.inject({
    method: 'POST',
    url: `/api/app/${slug}/completion-messages`,
    headers: { authorization: `Bearer ${key}`, ...headers },
    payload: { inputs, response_mode: 'blocking', user: 'end-user-1', ...extra },
  });

const balance = async (token: string) => (await api('GET', '/api/billing/balance/', token)).json() as { credits_cents: number; earnings_cents: number };

describe('a paid completion call', () => {
  it('answers in Dify format, charges the caller, pays the creator and the platform fee, and records the invocation', async () => {
    const slug = await livePublicApp();
    const consumer = await newConsumer();
    const creatorBefore = await balance(ownerToken);
    upstream.setBehaviour({ text: 'Owls are birds.', usage: { inputTokens: 12, outputTokens: 5 } });
    const response = await callCompletion(slug, consumer.key, { query: 'Tell me about owls' });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({
      event: 'message',
      mode: 'completion',
      answer: 'Owls are birds.',
      metadata: { usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17, input_tokens: 12, output_tokens: 5 } },
    });
    expect(body.id).toBe(body.message_id);
    expect(response.headers['ratelimit-limit']).toBe('100000');
    // The upstream got the system prompt and the rendered template.
    const sent = upstream.lastRequest().body as { model: string; messages: { role: string; content: string }[]; temperature: number; max_tokens: number };
    expect(sent.model).toBe('gpt-4-turbo');
    expect(sent.messages).toEqual([
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: 'Tell me about owls' },
    ]);
    expect(sent.temperature).toBe(0.7);
    expect(sent.max_tokens).toBe(2048);
    expect((await balance(consumer.token)).credits_cents).toBe(500 - PRICE);
    // gpt-4-turbo at $10 / $30 per million tokens: 12 × 10 + 5 × 30 = 270 µ$, posted as 1 cent (the
    // creator's running model cost rounded up); the creator earns the price less the fee and that.
    expect((await balance(ownerToken)).earnings_cents - creatorBefore.earnings_cents).toBe(PRICE - 10 - 1);
    const cost = await ctx.database.db.query('SELECT model, provider, model_cost_micros::int AS micros, fee_cents::int AS fee FROM invocations WHERE id = $1', [
      body.id,
    ]);
    expect(cost.rows[0]).toEqual({ model: 'gpt-4-turbo', provider: 'openai', micros: 270, fee: 10 });
    const invocation = await ctx.database.db.query(
      'SELECT status, price_cents, input_tokens, output_tokens, end_user, api_key_id FROM invocations WHERE id = $1',
      [body.id],
    );
    expect(invocation.rows[0]).toEqual({
      status: 'success',
      price_cents: PRICE,
      input_tokens: 12,
      output_tokens: 5,
      end_user: 'end-user-1',
      api_key_id: consumer.keyId,
    });
    await expectLedgerBalanced(ctx.database.db);
  });

  it('is free for the owner (recorded with price 0) and works on a draft private app', async () => {
    const created = await api('POST', '/api/app/', ownerToken, { name: 'Owner Only', type: 'prompt' });
    const slug = created.json().slug;
    const before = await balance(ownerToken);
    const response = await callCompletion(slug, ownerToken);
    expect(response.statusCode).toBe(200);
    expect((await balance(ownerToken)).credits_cents).toBe(before.credits_cents);
    const { rows } = await ctx.database.db.query('SELECT price_cents FROM invocations WHERE id = $1', [response.json().id]);
    expect(rows[0]).toEqual({ price_cents: 0 });
  });

  it('serves /v1/invoke/{slug} with a body of input fields', async () => {
    const slug = await livePublicApp();
    const consumer = await newConsumer();
    const response = await ctx.api('POST', `/v1/invoke/${slug}`, consumer.key, { query: 'Hi' });
    expect(response.statusCode).toBe(200);
    expect(response.json().answer).toBe('Hello from the fake model.');
    expect((await balance(consumer.token)).credits_cents).toBe(500 - PRICE);
  });
});

describe('access and validation', () => {
  it('hides private apps (404), refuses apps that are not live (403) and needs credentials (401)', async () => {
    const consumer = await newConsumer();
    const privateSlug = (await api('POST', '/api/app/', ownerToken, { name: 'Hidden', type: 'prompt' })).json().slug;
    await api('PATCH', `/api/app/${privateSlug}/update_status/`, ownerToken, { status: 'live' });
    expect((await callCompletion(privateSlug, consumer.key)).json()).toMatchObject({ code: 'not_found', status: 404 });
    const draftSlug = (await api('POST', '/api/app/', ownerToken, { name: 'Draft Public', type: 'prompt', visibility: 'public' })).json().slug;
    expect((await callCompletion(draftSlug, consumer.key)).json()).toMatchObject({ code: 'app_unavailable', status: 403 });
    const anonymous = await ctx.app.inject({ method: 'POST', url: `/api/app/${draftSlug}/completion-messages`, payload: { inputs: { query: 'x' } } });
    expect(anonymous.json()).toMatchObject({ code: 'unauthorized', status: 401 });
    expect((await callCompletion('no-such-app', consumer.key)).statusCode).toBe(404);
    expect((await balance(consumer.token)).credits_cents).toBe(500);
  });

  it('validates inputs against the input schema, naming the field, before charging', async () => {
    const slug = await livePublicApp();
    const consumer = await newConsumer();
    const missing = await callCompletion(slug, consumer.key, {});
    expect(missing.json()).toMatchObject({ code: 'invalid_param', status: 400, params: 'inputs.query' });
    const wrongType = await callCompletion(slug, consumer.key, { query: 42 });
    expect(wrongType.json()).toMatchObject({ code: 'invalid_param', params: 'inputs.query' });
    const extra = await callCompletion(slug, consumer.key, { query: 'x', colour: 'red' });
    expect(extra.json()).toMatchObject({ code: 'invalid_param', params: 'inputs.colour' });
    expect((await balance(consumer.token)).credits_cents).toBe(500);
    const { rows } = await ctx.database.db.query<{ error_type: string }>(
      "SELECT error_type FROM invocations i JOIN apps a ON a.id = i.app_id WHERE a.slug = $1 AND i.status = 'error'",
      [slug],
    );
    expect(rows.map((row) => row.error_type)).toEqual(['invalid_param', 'invalid_param', 'invalid_param']);
  });

  it('answers 413 for a body over the limit and 400 for an over-long query, charging nothing', async () => {
    const slug = await livePublicApp({ interaction_mode: 'chat' });
    const consumer = await newConsumer();
    const huge = await callCompletion(slug, consumer.key, { query: 'x'.repeat(1024 * 1024 + 10) });
    expect(huge.statusCode).toBe(413);
    expect(huge.json()).toMatchObject({ code: 'payload_too_large', status: 413 });
    const longQuery = await ctx.api('POST', `/api/app/${slug}/chat-messages`, consumer.key, { query: 'y'.repeat(100_001) });
    expect(longQuery.json()).toMatchObject({ code: 'invalid_param', params: 'query' });
    expect((await balance(consumer.token)).credits_cents).toBe(500);
  });

  it('answers 401 for a revoked key at once', async () => {
    const slug = await livePublicApp();
    const consumer = await newConsumer();
    expect((await callCompletion(slug, consumer.key)).statusCode).toBe(200);
    expect((await api('DELETE', `/api/keys/${consumer.keyId}/`, consumer.token)).statusCode).toBe(204);
    expect((await callCompletion(slug, consumer.key)).json()).toMatchObject({ code: 'unauthorized', status: 401 });
  });

  it('enforces a key’s monthly spend limit with 402 key_limit_exceeded', async () => {
    const slug = await livePublicApp();
    const consumer = await newConsumer({ monthly_spend_limit_cents: 250 });
    expect((await callCompletion(slug, consumer.key)).statusCode).toBe(200);
    expect((await callCompletion(slug, consumer.key)).statusCode).toBe(200);
    const third = await callCompletion(slug, consumer.key);
    expect(third.json()).toMatchObject({ code: 'key_limit_exceeded', status: 402 });
    expect((await balance(consumer.token)).credits_cents).toBe(500 - 2 * PRICE);
  });
});

describe('failures are free', () => {
  it.each([
    ['upstream 500', { status: 500 }, 502, 'provider_error'],
    ['malformed upstream answer', { malformed: true }, 502, 'provider_error'],
  ])('%s: failed invocation recorded with its type, nothing charged', async (_name, behaviour, status, code) => {
    const slug = await livePublicApp();
    const consumer = await newConsumer();
    upstream.setBehaviour(behaviour);
    const response = await callCompletion(slug, consumer.key);
    expect(response.statusCode).toBe(status);
    expect(response.json()).toMatchObject({ code, status });
    expect((await balance(consumer.token)).credits_cents).toBe(500);
    const { rows } = await ctx.database.db.query(
      'SELECT i.status, i.error_type, i.price_cents FROM invocations i JOIN apps a ON a.id = i.app_id WHERE a.slug = $1',
      [slug],
    );
    expect(rows).toEqual([{ status: 'error', error_type: code, price_cents: 0 }]);
    const holds = await ctx.database.db.query(
      'SELECT 1 FROM credit_holds h JOIN ledger_accounts a ON a.id = h.account_id JOIN api_keys k ON k.user_id = a.user_id WHERE k.id = $1',
      [consumer.keyId],
    );
    expect(holds.rows).toEqual([]);
  });
});

describe('upstream timeout', () => {
  it('answers 504 provider_timeout, records the failure and charges nothing', async () => {
    const quick = await createTestContext({ OPENAI_BASE_URL: upstream.baseUrl, OPENAI_API_KEY: TEST_MODEL_API_KEY, PROVIDER_TIMEOUT_MS: '300' });
    try {
      const owner = await quick.tokenFor('timeout-owner');
      const consumerToken = await quick.tokenFor('timeout-consumer');
      const auth = (token: string) => ({ authorization: `Bearer ${token}` });
      const slug = (
        await quick.app.inject({ method: 'POST', url: '/api/app/', headers: auth(owner), payload: { name: 'Slow', type: 'prompt', visibility: 'public' } })
      ).json().slug;
      await quick.app.inject({ method: 'PATCH', url: `/api/app/${slug}/update_status/`, headers: auth(owner), payload: { status: 'live' } });
      upstream.setBehaviour({ delayMs: 1500 });
      const response = await quick.app.inject({
        method: 'POST',
        url: `/api/app/${slug}/completion-messages`,
        headers: auth(consumerToken),
        payload: { inputs: { query: 'x' } },
      });
      expect(response.statusCode).toBe(504);
      expect(response.json()).toMatchObject({ code: 'provider_timeout', status: 504 });
      const credits = (await quick.app.inject({ method: 'GET', url: '/api/billing/balance/', headers: auth(consumerToken) })).json();
      expect(credits.credits_cents).toBe(500);
      const { rows } = await quick.database.db.query('SELECT status, error_type, price_cents FROM invocations');
      expect(rows).toEqual([{ status: 'error', error_type: 'provider_timeout', price_cents: 0 }]);
    } finally {
      await quick.close();
    }
  });
});

describe('exactly-once charging under concurrency', () => {
  it('with credits for exactly K calls, 10·K concurrent calls give K successes and 402 for the rest', async () => {
    const slug = await livePublicApp();
    const consumer = await newConsumer();
    const K = 500 / PRICE;
    const creatorBefore = await balance(ownerToken);
    upstream.setBehaviour({ delayMs: 20 });
    const responses = await Promise.all(Array.from({ length: 10 * K }, () => callCompletion(slug, consumer.key)));
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 200)).toHaveLength(K);
    expect(statuses.filter((status) => status === 402)).toHaveLength(9 * K);
    for (const response of responses.filter((r) => r.statusCode === 402)) expect(response.json().code).toBe('insufficient_credits');
    expect((await balance(consumer.token)).credits_cents).toBe(0);
    expect((await balance(ownerToken)).earnings_cents - creatorBefore.earnings_cents).toBe(K * (PRICE - 10));
    await expectLedgerBalanced(ctx.database.db);
  });

  it('50 idempotency keys sent 5 times each: one charge and one upstream call per key, the same body for replays', async () => {
    // 9 cents covers gpt-4-turbo's worst case at 2,048 tokens, so only the caller's credits are held.
    const slug = await livePublicApp({ price_cents: 9 });
    const consumer = await newConsumer();
    const upstreamBefore = upstream.requests.length;
    upstream.setBehaviour({ delayMs: 30, text: 'idempotent answer' });
    const keys = Array.from({ length: 50 }, (_, i) => `key-${i}`);
    const responses = await Promise.all(
      keys.flatMap((key) => Array.from({ length: 5 }, () => callCompletion(slug, consumer.key, { query: 'same' }, { 'idempotency-key': key }))),
    );
    for (const response of responses) expect(response.statusCode, response.body).toBe(200);
    for (const [index, key] of keys.entries()) {
      const group = responses.slice(index * 5, index * 5 + 5).map((response) => response.body);
      expect(new Set(group).size, key).toBe(1);
    }
    expect(upstream.requests.length - upstreamBefore).toBe(50);
    expect((await balance(consumer.token)).credits_cents).toBe(500 - 50 * 9);
    const conflict = await callCompletion(slug, consumer.key, { query: 'different' }, { 'idempotency-key': 'key-0' });
    expect(conflict.json()).toMatchObject({ code: 'conflict', status: 409 });
    await expectLedgerBalanced(ctx.database.db);
  }, 120_000);
});

describe('streaming', () => {
  it('streams message chunks then message_end, charging once', async () => {
    const slug = await livePublicApp();
    const consumer = await newConsumer();
    upstream.setBehaviour({ text: 'one two three four five', usage: { inputTokens: 3, outputTokens: 5 } });
    const response = await callCompletion(slug, consumer.key, { query: 'count' }, {}, { response_mode: 'streaming' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/event-stream');
    const events = response.body
      .split('\n\n')
      .filter((frame) => frame.startsWith('data: '))
      .map((frame) => JSON.parse(frame.slice(6)));
    const messages = events.filter((event) => event.event === 'message');
    expect(messages.map((event) => event.answer).join('')).toBe('one two three four five');
    const end = events.at(-1);
    expect(end).toMatchObject({ event: 'message_end', metadata: { usage: { input_tokens: 3, output_tokens: 5 } } });
    expect((await balance(consumer.token)).credits_cents).toBe(500 - PRICE);
  });

  it('sends an error event and charges nothing when the upstream fails mid-stream', async () => {
    const slug = await livePublicApp();
    const consumer = await newConsumer();
    upstream.setBehaviour({ text: 'a b c d e f g h', cutStreamAfterChunks: 2 });
    const response = await callCompletion(slug, consumer.key, { query: 'count' }, {}, { response_mode: 'streaming' });
    const events = response.body
      .split('\n\n')
      .filter((frame) => frame.startsWith('data: '))
      .map((frame) => JSON.parse(frame.slice(6)));
    expect(events.at(-1)).toMatchObject({ event: 'error', code: 'provider_error' });
    expect((await balance(consumer.token)).credits_cents).toBe(500);
  });
});

describe('chat', () => {
  it('keeps the conversation server-side and sends the history on a follow-up', async () => {
    const slug = await livePublicApp({ interaction_mode: 'chat' });
    const consumer = await newConsumer();
    upstream.setBehaviour({ text: 'Nice to meet you, Ada.' });
    const first = await ctx.api('POST', `/api/app/${slug}/chat-messages`, consumer.key, { query: 'My name is Ada.', response_mode: 'blocking', user: 'u' });
    expect(first.statusCode).toBe(200);
    const conversationId = first.json().conversation_id;
    expect(conversationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.json().mode).toBe('chat');
    upstream.setBehaviour({ text: 'Your name is Ada.' });
    const second = await ctx.api('POST', `/api/app/${slug}/chat-messages`, consumer.key, {
      query: 'What is my name?',
      conversation_id: conversationId,
      response_mode: 'blocking',
      user: 'u',
    });
    expect(second.json()).toMatchObject({ conversation_id: conversationId, answer: 'Your name is Ada.' });
    const sent = upstream.lastRequest().body as { messages: { role: string; content: string }[] };
    expect(sent.messages.map((message) => [message.role, message.content])).toEqual([
      ['system', 'You are a helpful assistant.'],
      ['user', 'My name is Ada.'],
      ['assistant', 'Nice to meet you, Ada.'],
      ['user', 'What is my name?'],
    ]);
    const stranger = await newConsumer();
    const foreign = await ctx.api('POST', `/api/app/${slug}/chat-messages`, stranger.key, { query: 'Hi', conversation_id: conversationId });
    expect(foreign.json()).toMatchObject({ code: 'not_found', message: 'Conversation Not Exists.' });
    const missingQuery = await ctx.api('POST', `/api/app/${slug}/chat-messages`, consumer.key, {});
    expect(missingQuery.json()).toMatchObject({ code: 'invalid_param', params: 'query' });
  });
});

describe('rate limiting', () => {
  it('answers 429 with Retry-After and RateLimit headers past the limit', async () => {
    const limited = await createTestContext({ OPENAI_BASE_URL: upstream.baseUrl, OPENAI_API_KEY: TEST_MODEL_API_KEY, RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const owner = await limited.tokenFor('rl-owner');
      const slug = (
        await limited.app.inject({ method: 'POST', url: '/api/app/', headers: { authorization: `Bearer ${owner}` }, payload: { name: 'RL', type: 'prompt' } })
      ).json().slug;
      const call = () => limited.api('POST', `/api/app/${slug}/completion-messages`, owner, { inputs: { query: 'x' } });
      await aFreshMinute();
      for (let i = 0; i < 3; i++) expect((await call()).statusCode).toBe(200);
      const response = await call();
      expect(response.statusCode).toBe(429);
      expect(response.json()).toMatchObject({ code: 'rate_limited', status: 429 });
      expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
      expect(response.headers['ratelimit-remaining']).toBe('0');
    } finally {
      await limited.close();
    }
  });
});

describe('a creator’s first app (issue 25)', () => {
  it('a template variable the schema leaves out is a required input of every call, also in versions saved before saving declared it', async () => {
    const slug = await livePublicApp();
    // Saved through the API with no declared input: the variable is declared for it.
    const saved = await api('PATCH', `/api/app/${slug}/prompt/`, ownerToken, {
      prompt_template: 'A haiku about {{query}}',
      input_schema: { type: 'object', properties: {}, additionalProperties: false },
    });
    expect(saved.json().active_version.input_schema.required).toEqual(['query']);
    const consumer = await newConsumer();
    upstream.setBehaviour({ text: 'Owls at dusk.' });
    const answered = await callCompletion(slug, consumer.key, { query: 'owls' });
    expect(answered.statusCode, answered.body).toBe(200);
    expect(JSON.stringify(upstream.lastRequest().body)).toContain('A haiku about owls');
    // A version saved before saving declared variables (its schema declares nothing) is read the same way.
    const oldSlug = await livePublicApp();
    await ctx.database.db.query(
      `UPDATE prompt_versions SET prompt_template = 'A haiku about {{query}}', input_schema = '{"type":"object","properties":{},"additionalProperties":false}'
       WHERE app_id = (SELECT id FROM apps WHERE slug = $1)`,
      [oldSlug],
    );
    const old = await callCompletion(oldSlug, consumer.key, { query: 'moths' });
    expect(old.statusCode, old.body).toBe(200);
    expect(JSON.stringify(upstream.lastRequest().body)).toContain('A haiku about moths');
    expect((await callCompletion(oldSlug, consumer.key, {})).json()).toMatchObject({
      code: 'invalid_param',
      params: 'inputs.query',
      message: 'inputs.query: is required',
    });
  });

  it('tells a caller out of credit where to add some: the 402 names the Money page', async () => {
    const slug = await livePublicApp({ price_cents: 600 });
    const consumer = await newConsumer();
    const refused = await callCompletion(slug, consumer.key, { query: 'x' });
    expect(refused.statusCode).toBe(402);
    expect(refused.json()).toMatchObject({ code: 'insufficient_credits', status: 402 });
    expect(refused.json().message).toBe(
      `Not enough credits for this call (600 cents): add credits on the Money page, ${ctx.config.publicUrl}/money, and try again`,
    );
  });

  it('records a call to the other mode’s endpoint as wrong_route, a caller’s mistake with its own type', async () => {
    const chatSlug = await livePublicApp({ interaction_mode: 'chat' });
    const completionSlug = await livePublicApp();
    const consumer = await newConsumer();
    const toChat = await callCompletion(chatSlug, consumer.key, { query: 'x' });
    expect(toChat.json()).toMatchObject({ code: 'app_unavailable', status: 400, message: expect.stringContaining('call chat-messages') });
    const toCompletion = await ctx.api('POST', `/api/app/${completionSlug}/chat-messages`, consumer.key, { query: 'x', inputs: {} });
    expect(toCompletion.json()).toMatchObject({ code: 'not_chat_app', status: 400 });
    const { rows } = await ctx.database.db.query<{ error_type: string; outcome: string }>(
      'SELECT error_type, outcome FROM invocations i JOIN apps a ON a.id = i.app_id WHERE a.slug = ANY($1)',
      [[chatSlug, completionSlug]],
    );
    expect(rows).toEqual([
      { error_type: 'wrong_route', outcome: 'rejected' },
      { error_type: 'wrong_route', outcome: 'rejected' },
    ]);
  });
});
