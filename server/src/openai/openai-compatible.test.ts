// The OpenAI-compatible endpoints driven by the official `openai` SDK, unmodified, against a
// listening Tollbooth whose apps are answered by the OpenAI fake on loopback (a real provider:
// its answers are charged). Every successful call is checked in the ledger: the caller's credits
// lose exactly the price, the creator earns it less the platform fee, nothing else moves.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPaidTestContext, createTestContext, listenOnLoopback, TEST_MODEL_API_KEY, type TestContext } from '../test-support/app.ts';
import { workflowAppFields } from '../test-support/dify-app.ts';
import { startDifyFake } from '../test-support/fakes/dify-fake.ts';
import { expectLedgerBalanced } from '../test-support/ledger.ts';
import { sendJson } from '../test-support/server-process.ts';
import { aFreshMinute } from '../test-support/wait-for.ts';

// Busy machines: every test makes several calls over real sockets.
vi.setConfig({ testTimeout: 120_000 });

const PRICE = 100;
const FEE = 10; // PLATFORM_FEE_BPS 1000
const DIFY_KEY = 'app-openaiDifyKey000LAST';

const dify = await startDifyFake({ apiKey: DIFY_KEY });
const ctx = await createPaidTestContext({
  PROVIDER_TIMEOUT_MS: '60000',
  RATE_LIMIT_PER_MINUTE: '100000',
  PLATFORM_FEE_BPS: '1000',
  ALLOW_PRIVATE_PROVIDER_URLS: 'on',
});
const base = await listenOnLoopback(ctx.app);
const ownerToken = await ctx.tokenFor('openai-owner', { name: 'Owl Creator' });
const upstream = ctx.model;
afterAll(async () => {
  await ctx.close();
  await dify.close();
});
beforeEach(() => {
  upstream.resetBehaviour();
  dify.resetBehaviour();
  dify.resetApp();
});

const api = (method: string, path: string, token: string, body?: object) => sendJson(base, method, path, token, body);

const client = (key: string) => new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0, timeout: 60_000 });

let appCounter = 0;
/** A prompt app of the owner's; live and public unless overridden, priced PRICE. */
async function promptApp(options: { mode?: 'completion' | 'chat'; visibility?: string; status?: string; price?: number; prompt?: object } = {}) {
  const created = await api('POST', '/api/app/', ownerToken, {
    name: `OpenAI App ${++appCounter}`,
    type: 'prompt',
    visibility: options.visibility ?? 'public',
    price_cents: options.price ?? PRICE,
    interaction_mode: options.mode ?? 'completion',
  });
  expect(created.status).toBe(201);
  const slug = created.body.slug;
  if (options.prompt) expect((await api('PATCH', `/api/app/${slug}/prompt/`, ownerToken, options.prompt)).status).toBe(200);
  if ((options.status ?? 'live') !== 'draft') await api('PATCH', `/api/app/${slug}/update_status/`, ownerToken, { status: options.status ?? 'live' });
  return slug;
}

let consumerCounter = 0;
async function newConsumer() {
  const subject = `openai-consumer-${++consumerCounter}`;
  const token = await ctx.tokenFor(subject);
  const key = await api('POST', '/api/keys/', token, { name: 'sdk key' });
  expect(key.status).toBe(201);
  return { subject, token, key: key.body.key as string, keyId: key.body.id as string };
}

const balances = async (token: string) =>
  (await api('GET', '/api/billing/balance/', token)).body as unknown as { credits_cents: number; earnings_cents: number };

/**
 * The ledger of one call: the caller's credits −price, the creator's earnings +price−fee, the
 * platform +fee, in the call_charge transaction its invocation refers to, which carries the calls
 * of its batch to this app by this caller (decision 0062), all at this price here.
 */
async function expectChargedOnce(invocationId: string, callerSubject: string) {
  const { rows: calls } = await ctx.database.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM invocations i JOIN invocations o ON o.id = $1 AND i.ledger_transaction_id = o.ledger_transaction_id
     JOIN ledger_transactions t ON t.id = i.ledger_transaction_id AND t.kind = 'call_charge'`,
    [invocationId],
  );
  const n = calls[0]!.n;
  expect(n).toBeGreaterThanOrEqual(1);
  const { rows } = await ctx.database.db.query<{ kind: string; subject: string | null; amount: number }>(
    `SELECT a.kind, u.subject, e.amount_cents::int AS amount
     FROM invocations i JOIN ledger_entries e ON e.transaction_id = i.ledger_transaction_id JOIN ledger_accounts a ON a.id = e.account_id
     LEFT JOIN users u ON u.id = a.user_id WHERE i.id = $1 ORDER BY a.kind`,
    [invocationId],
  );
  // The model cost posted with the calls (the cents the creator's running model cost grew by, decision 0025) comes out of the creator's share.
  const posted = rows.find((row) => row.kind === 'model_costs')?.amount ?? 0;
  expect(rows.filter((row) => row.kind !== 'model_costs')).toEqual([
    { kind: 'creator_earnings', subject: 'openai-owner', amount: n * (PRICE - FEE) - posted },
    { kind: 'platform_fees', subject: null, amount: n * FEE },
    { kind: 'user_credits', subject: callerSubject, amount: -n * PRICE },
  ]);
  const invocation = await ctx.database.db.query('SELECT status, price_cents::int AS price FROM invocations WHERE id = $1', [invocationId]);
  expect(invocation.rows).toEqual([{ status: 'success', price: PRICE }]);
}

const invocationsOf = async (subject: string) =>
  (
    await ctx.database.db.query<{ id: string; status: string; error_type: string; price_cents: number }>(
      `SELECT i.id, i.status, i.error_type, i.price_cents::int AS price_cents FROM invocations i JOIN users u ON u.id = i.caller_id
       WHERE u.subject = $1 ORDER BY i.created_at, i.id`,
      [subject],
    )
  ).rows;

/** Waits for the batched settlement of a stream to be visible. */
async function successesOf(subject: string, count: number) {
  for (let attempt = 0; attempt < 200; attempt++) {
    const rows = (await invocationsOf(subject)).filter((row) => row.status === 'success');
    if (rows.length >= count) return rows;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`expected ${count} successful invocations`);
}

describe('chat.completions.create on a completion app', () => {
  it('answers blocking with usage, fills the text input from the last user message, and charges exactly once', async () => {
    const slug = await promptApp();
    const consumer = await newConsumer();
    const creatorBefore = await balances(ownerToken);
    const modelCostsBalance = async () =>
      Number((await ctx.database.db.query("SELECT balance_cents FROM ledger_accounts WHERE kind = 'model_costs'")).rows[0]!.balance_cents);
    const modelCostsBefore = await modelCostsBalance();
    upstream.setBehaviour({ text: 'Owls hunt at night.', usage: { inputTokens: 12, outputTokens: 5 } });

    const completion = await client(consumer.key).chat.completions.create({
      model: slug,
      messages: [
        { role: 'system', content: 'ignored for completion apps' },
        { role: 'user', content: 'Tell me about owls' },
      ],
      user: 'end-user-9',
    });
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: slug,
      choices: [{ index: 0, message: { role: 'assistant', content: 'Owls hunt at night.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
    });
    expect(completion.id).toMatch(/^chatcmpl-[0-9a-f-]{36}$/);
    // The app's own system prompt and its template, rendered with the message as {{query}}.
    expect((upstream.lastRequest().body as { messages: unknown }).messages).toEqual([
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: 'Tell me about owls' },
    ]);

    expect((await balances(consumer.token)).credits_cents).toBe(500 - PRICE);
    // gpt-4-turbo: 12 × $10 + 5 × $30 per million tokens = 270 µ$; the creator earns the price less the fee and the model cost posted.
    const [cost] = (await ctx.database.db.query('SELECT model_cost_micros::int AS micros FROM invocations WHERE id = $1', [completion.id.slice(9)])).rows;
    expect(cost).toEqual({ micros: 270 });
    const posted = (await modelCostsBalance()) - modelCostsBefore;
    expect((await balances(ownerToken)).earnings_cents - creatorBefore.earnings_cents).toBe(PRICE - FEE - posted);
    await expectChargedOnce(completion.id.slice('chatcmpl-'.length), consumer.subject);
    const [row] = (await ctx.database.db.query('SELECT end_user, api_key_id FROM invocations WHERE id = $1', [completion.id.slice(9)])).rows;
    expect(row).toEqual({ end_user: 'end-user-9', api_key_id: consumer.keyId });
    await expectLedgerBalanced(ctx.database.db);
  });

  it('streams chunks with the role first, finish_reason stop, and a usage chunk with include_usage, charged once', async () => {
    const slug = await promptApp();
    const consumer = await newConsumer();
    upstream.setBehaviour({ text: 'one two three four five', usage: { inputTokens: 9, outputTokens: 5 } });

    const stream = await client(consumer.key).chat.completions.create({
      model: slug,
      messages: [{ role: 'user', content: 'Count to five' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.model === slug)).toBe(true);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('one two three four five');
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta.content).length).toBeGreaterThan(1);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual({ prompt_tokens: 9, completion_tokens: 5, total_tokens: 14, cost: PRICE / 100, cost_cents: PRICE });
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);

    const [success] = await successesOf(consumer.subject, 1);
    await expectChargedOnce(success!.id, consumer.subject);
    expect((await balances(consumer.token)).credits_cents).toBe(500 - PRICE);
    await expectLedgerBalanced(ctx.database.db);
  });

  it('streams without a usage chunk when include_usage is not asked for', async () => {
    const slug = await promptApp();
    const consumer = await newConsumer();
    const stream = await client(consumer.key).chat.completions.create({ model: slug, messages: [{ role: 'user', content: 'Hi' }], stream: true });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks.every((chunk) => chunk.usage === undefined)).toBe(true);
    const [success] = await successesOf(consumer.subject, 1);
    await expectChargedOnce(success!.id, consumer.subject);
  });

  it('takes an inputs object for an app with several inputs, and names the missing field when one is absent', async () => {
    const slug = await promptApp({
      prompt: {
        prompt_template: 'Write about {{topic}} in the style of {{style}}',
        input_schema: {
          type: 'object',
          properties: { topic: { type: 'string' }, style: { type: 'string' } },
          required: ['topic', 'style'],
          additionalProperties: false,
        },
      },
    });
    const consumer = await newConsumer();
    const openai = client(consumer.key);
    const answered = await openai.chat.completions.create({
      model: slug,
      messages: [],
      // @ts-expect-error Tollbooth's addition to the body, passed through by the SDK unmodified.
      inputs: { topic: 'owls', style: 'a haiku' },
    });
    expect(answered.choices[0]!.message.content).toBe('Hello from the fake model.');
    expect((upstream.lastRequest().body as { messages: { content: string }[] }).messages.at(-1)!.content).toBe('Write about owls in the style of a haiku');
    await expectChargedOnce(answered.id.slice(9), consumer.subject);

    // A message fills the first text input the template uses; the other one is still required.
    const halfway = await openai.chat.completions.create({ model: slug, messages: [{ role: 'user', content: 'owls' }] }).catch((error) => error);
    expect(halfway).toBeInstanceOf(OpenAI.BadRequestError);
    expect(halfway.status).toBe(400);
    expect(halfway.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_param', param: 'inputs.style' });
    const both = await openai.chat.completions.create({
      model: slug,
      messages: [{ role: 'user', content: 'bats' }],
      // @ts-expect-error Tollbooth's addition.
      inputs: { style: 'a limerick' },
    });
    expect((upstream.lastRequest().body as { messages: { content: string }[] }).messages.at(-1)!.content).toBe('Write about bats in the style of a limerick');
    await expectChargedOnce(both.id.slice(9), consumer.subject);

    const missing = await openai.chat.completions
      // @ts-expect-error Tollbooth's addition.
      .create({ model: slug, messages: [], inputs: { topic: 'owls' } })
      .catch((error) => error);
    expect(missing.status).toBe(400);
    expect(missing.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_param', param: 'inputs.style' });
    expect(missing.message).toContain('inputs.style');

    const noMessages = await openai.chat.completions.create({ model: slug, messages: [] }).catch((error) => error);
    expect(noMessages.status).toBe(400);
    expect(noMessages.error.param).toBe('messages');

    // Refusals are recorded as the gateway's are, and cost nothing.
    const rows = await invocationsOf(consumer.subject);
    expect(rows.map((row) => [row.status, row.error_type, row.price_cents]).sort()).toEqual(
      [
        ['success', '', PRICE],
        ['success', '', PRICE],
        ['error', 'invalid_param', 0],
        ['error', 'invalid_param', 0],
        ['error', 'invalid_param', 0],
      ].sort(),
    );
    expect((await balances(consumer.token)).credits_cents).toBe(500 - 2 * PRICE);
  });
});

describe('an app with three variables, from the unmodified openai SDK (issue 61, trap 3)', () => {
  it('the message fills the main text input; metadata (typed in the SDK) or an extra body field fill the rest; a missing one says how to send it', async () => {
    const slug = await promptApp({
      prompt: {
        // No schema: the template declares all three (required text inputs, as the builder saves them).
        prompt_template: 'Write about {{topic}} in a {{tone}} tone, in {{words}} words',
      },
    });
    const consumer = await newConsumer();
    const openai = client(consumer.key);
    const sentText = () => (upstream.lastRequest().body as { messages: { content: string }[] }).messages.at(-1)!.content;

    const missing = await openai.chat.completions.create({ model: slug, messages: [{ role: 'user', content: 'owls' }] }).catch((error) => error);
    expect(missing.status).toBe(400);
    expect(missing.error).toMatchObject({ code: 'invalid_param', param: 'inputs.tone' });
    expect(missing.message).toContain('metadata.tone');
    expect(missing.message).toContain('"inputs"');

    // OpenAI's own metadata field: no cast, no extra body.
    const viaMetadata = await openai.chat.completions.create({
      model: slug,
      messages: [{ role: 'user', content: 'owls' }],
      metadata: { tone: 'dry', words: '50' },
    });
    expect(viaMetadata.choices[0]!.message.content).toBe('Hello from the fake model.');
    expect(sentText()).toBe('Write about owls in a dry tone, in 50 words');

    // An extra field of the params is sent as it is (extra_body in Python); it wins over metadata.
    const params = { model: slug, messages: [{ role: 'user' as const, content: 'bats' }], inputs: { tone: 'warm', words: '20' }, metadata: { tone: 'cold' } };
    const viaInputs = await openai.chat.completions.create(params);
    expect(viaInputs.choices[0]!.message.content).toBe('Hello from the fake model.');
    expect(sentText()).toBe('Write about bats in a warm tone, in 20 words');

    // Streaming and the Responses API take the same fields.
    const stream = await openai.chat.completions.create({
      model: slug,
      messages: [{ role: 'user', content: 'cats' }],
      metadata: { tone: 'wry', words: '9' },
      stream: true,
    });
    for await (const _chunk of stream) {
      // drained
    }
    expect(sentText()).toBe('Write about cats in a wry tone, in 9 words');
    const response = await openai.responses.create({ model: slug, input: 'moths', metadata: { tone: 'calm', words: '3' } });
    expect(response.status).toBe('completed');
    expect(sentText()).toBe('Write about moths in a calm tone, in 3 words');

    // metadata values are strings: anything else is refused naming it; keys that are no input are OpenAI's tags, left alone.
    const numeric = await openai.chat.completions
      .create({ model: slug, messages: [{ role: 'user', content: 'owls' }], metadata: { tone: 5 } as unknown as Record<string, string> })
      .catch((error) => error);
    expect(numeric.status).toBe(400);
    expect(numeric.error).toMatchObject({ param: 'metadata.tone' });
    await openai.chat.completions.create({ model: slug, messages: [{ role: 'user', content: 'owls' }], metadata: { tone: 'x', words: '1', trace: 'abc' } });
    expect(sentText()).toBe('Write about owls in a x tone, in 1 words');
    await successesOf(consumer.subject, 5);
  });
});

describe('the built-in demo model', () => {
  it('answers free over the OpenAI endpoint too, and says so', async () => {
    // Anthropic is not configured here, so the built-in demo model answers this app.
    const slug = await promptApp({ prompt: { model: 'claude-3-haiku' } });
    const consumer = await newConsumer();
    const completion = await client(consumer.key).chat.completions.create({ model: slug, messages: [{ role: 'user', content: 'owls' }] });
    expect(completion).toMatchObject({ object: 'chat.completion', demo: true });
    const stream = await client(consumer.key).chat.completions.create({ model: slug, messages: [{ role: 'user', content: 'owls' }], stream: true });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.at(-1)).toMatchObject({ demo: true, choices: [{ finish_reason: 'stop' }] });
    await successesOf(consumer.subject, 2);
    expect((await invocationsOf(consumer.subject)).map((row) => row.price_cents)).toEqual([0, 0]);
    expect((await balances(consumer.token)).credits_cents).toBe(500);
  });
});

describe('chat.completions.create on a chat app', () => {
  it('sends the messages as the conversation after the app system prompt, stores none of it, and charges', async () => {
    const slug = await promptApp({ mode: 'chat' });
    const consumer = await newConsumer();
    upstream.setBehaviour({ text: 'Barn owls, mostly.' });
    const completion = await client(consumer.key).chat.completions.create({
      model: slug,
      messages: [
        { role: 'system', content: 'Answer briefly.' },
        { role: 'user', content: 'Name an owl' },
        { role: 'assistant', content: 'The snowy owl.' },
        { role: 'user', content: [{ type: 'text', text: 'And another?' }] },
      ],
    });
    expect(completion.choices[0]!.message.content).toBe('Barn owls, mostly.');
    expect((upstream.lastRequest().body as { messages: unknown }).messages).toEqual([
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'system', content: 'Answer briefly.' },
      { role: 'user', content: 'Name an owl' },
      { role: 'assistant', content: 'The snowy owl.' },
      { role: 'user', content: 'And another?' },
    ]);
    await expectChargedOnce(completion.id.slice(9), consumer.subject);
    const conversations = await ctx.database.db.query('SELECT c.id FROM conversations c JOIN users u ON u.id = c.caller_id WHERE u.subject = $1', [
      consumer.subject,
    ]);
    expect(conversations.rows).toEqual([]);

    const notLast = await client(consumer.key)
      .chat.completions.create({ model: slug, messages: [{ role: 'assistant', content: 'Hello' }] })
      .catch((error) => error);
    expect(notLast.status).toBe(400);
    expect(notLast.error.param).toBe('messages');
  });

  it('streams a chat with include_usage and charges once', async () => {
    const slug = await promptApp({ mode: 'chat' });
    const consumer = await newConsumer();
    upstream.setBehaviour({ text: 'a b c d', usage: { inputTokens: 3, outputTokens: 4 } });
    const stream = await client(consumer.key).chat.completions.create({
      model: slug,
      messages: [{ role: 'user', content: 'letters' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('a b c d');
    expect(usage).toEqual({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7, cost: PRICE / 100, cost_cents: PRICE });
    const [success] = await successesOf(consumer.subject, 1);
    await expectChargedOnce(success!.id, consumer.subject);
  });
});

describe('a Dify app behind the OpenAI endpoint', () => {
  async function difyApp(mode: 'chat' | 'completion', form: object[] = []) {
    Object.assign(dify.app, { mode, userInputForm: form });
    const created = await api('POST', '/api/app/', ownerToken, workflowAppFields(dify, DIFY_KEY, `OpenAI Flow ${++appCounter}`, PRICE));
    expect(created.status).toBe(201);
    expect((await api('PATCH', `/api/app/${created.body.slug}/workflow/`, ownerToken, {})).status).toBe(200);
    await api('PATCH', `/api/app/${created.body.slug}/update_status/`, ownerToken, { status: 'live' });
    return created.body.slug;
  }

  it('sends the last message as the query of a chat app and continues the conversation by conversation_id', async () => {
    const slug = await difyApp('chat');
    const consumer = await newConsumer();
    dify.setBehaviour({ text: (request) => `Dify echo: ${(request.body as { query: string }).query}` });
    const openai = client(consumer.key);
    const first = await openai.chat.completions.create({ model: slug, messages: [{ role: 'user', content: 'Hello Dify' }] });
    expect(first.choices[0]!.message.content).toBe('Dify echo: Hello Dify');
    const conversationId = (first as unknown as { conversation_id: string }).conversation_id;
    expect(conversationId).toMatch(/^[0-9a-f-]{36}$/);
    const second = await openai.chat.completions.create({
      model: slug,
      messages: [{ role: 'user', content: 'Again' }],
      // @ts-expect-error Tollbooth's addition.
      conversation_id: conversationId,
    });
    expect((second as unknown as { conversation_id: string }).conversation_id).toBe(conversationId);
    await expectChargedOnce(first.id.slice(9), consumer.subject);
    await expectChargedOnce(second.id.slice(9), consumer.subject);
  });

  it("fills a completion app's text input from the message, streaming", async () => {
    const slug = await difyApp('completion', [{ 'text-input': { label: 'Topic', variable: 'topic', required: true } }]);
    const consumer = await newConsumer();
    const stream = await client(consumer.key).chat.completions.create({ model: slug, messages: [{ role: 'user', content: 'owls' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text.length).toBeGreaterThan(0);
    const sent = dify.requests.filter((request) => request.path.endsWith('/completion-messages')).at(-1)!;
    expect((sent.body as { inputs: object }).inputs).toEqual({ topic: 'owls' });
    const [success] = await successesOf(consumer.subject, 1);
    await expectChargedOnce(success!.id, consumer.subject);
  });
});

describe("the app page's OpenAI SDK snippet", () => {
  // Written where Node resolves the workspace's `openai` package; the key and this server's address
  // replace YOUR_API_KEY and PUBLIC_URL, as a caller pasting it would have them.
  const run = async (snippet: string, key: string) => {
    const cache = path.resolve(import.meta.dirname, '../../../node_modules/.cache');
    mkdirSync(cache, { recursive: true });
    const directory = mkdtempSync(path.join(cache, 'openai-snippet-'));
    try {
      const file = path.join(directory, 'snippet.mjs');
      writeFileSync(file, snippet.replaceAll('YOUR_API_KEY', key).replaceAll('http://tollbooth.test', base));
      return (await promisify(execFile)(process.execPath, [file], { timeout: 60_000 })).stdout.trim();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  };

  it('runs as pasted for a completion app with several inputs and for a chat app, each call charged', async () => {
    const completion = await promptApp({
      prompt: {
        prompt_template: 'Write about {{topic}} in the style of {{style}}',
        input_schema: {
          type: 'object',
          properties: { style: { type: 'string', maxLength: 40 }, topic: { type: 'string', maxLength: 40 } },
          required: ['topic', 'style'],
          additionalProperties: false,
        },
      },
    });
    const chat = await promptApp({ mode: 'chat' });
    const consumer = await newConsumer();
    upstream.setBehaviour({ text: 'Pasted and answered.' });
    for (const slug of [completion, chat]) {
      const page = await api('GET', `/api/catalog/${slug}`, consumer.token);
      expect(page.status).toBe(200);
      const snippet = (page.body.snippets as { openai_sdk: string }).openai_sdk;
      expect(snippet).toContain(`model: '${slug}'`);
      expect(await run(snippet, consumer.key)).toBe('Pasted and answered.');
    }
    const successes = await successesOf(consumer.subject, 2);
    for (const success of successes) await expectChargedOnce(success.id, consumer.subject);
    expect((await balances(consumer.token)).credits_cents).toBe(500 - 2 * PRICE);
  });
});

describe('models.list and models.retrieve', () => {
  it("lists the caller's own apps and other creators' live public apps with their price, and nothing else", async () => {
    const livePublic = await promptApp({ price: 250 });
    const draftPublic = await promptApp({ status: 'draft' });
    const livePrivate = await promptApp({ visibility: 'private' });
    const liveEmbed = await promptApp({ visibility: 'embed' });
    const consumer = await newConsumer();
    const ownSlug = (await api('POST', '/api/app/', consumer.token, { name: 'Consumer Draft', type: 'prompt' })).body.slug;

    const models: OpenAI.Models.Model[] = [];
    for await (const model of client(consumer.key).models.list()) models.push(model);
    const ids = models.map((model) => model.id);
    expect(ids).toContain(livePublic);
    expect(ids).toContain(ownSlug);
    for (const hidden of [draftPublic, livePrivate, liveEmbed]) expect(ids).not.toContain(hidden);
    expect(models.find((model) => model.id === livePublic)).toMatchObject({
      object: 'model',
      owned_by: 'Owl Creator',
      price_cents: 250,
      price: '2.50',
      currency: 'USD',
      mode: 'completion',
      type: 'prompt',
      is_owner: false,
    });
    expect(models.find((model) => model.id === ownSlug)).toMatchObject({ is_owner: true });

    const retrieved = await client(consumer.key).models.retrieve(livePublic);
    expect(retrieved).toMatchObject({ id: livePublic, object: 'model', price_cents: 250 });
    // Callable embed apps can be read by slug, private ones of others cannot.
    expect((await client(consumer.key).models.retrieve(liveEmbed)).id).toBe(liveEmbed);
    const hidden = await client(consumer.key)
      .models.retrieve(livePrivate)
      .catch((error) => error);
    expect(hidden).toBeInstanceOf(OpenAI.NotFoundError);
    expect(hidden.error).toMatchObject({ code: 'model_not_found', param: 'model' });
  });

  it('refuses a bad key with 401 in the OpenAI envelope', async () => {
    const error = await client('tb_notARealKey000000000000000000000000000000')
      .models.list()
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error.status).toBe(401);
    expect(error.error).toMatchObject({ type: 'authentication_error', code: 'unauthorized' });
  });
});

describe('errors in the OpenAI envelope', () => {
  it('401 for a bad or missing key, 404 for an unknown model, 402 without credit, 402 above the price cap — none charged', async () => {
    const slug = await promptApp();
    const bad = await client('tb_notARealKey000000000000000000000000000000')
      .chat.completions.create({ model: slug, messages: [{ role: 'user', content: 'hi' }] })
      .catch((error) => error);
    expect(bad).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(bad.error).toMatchObject({ type: 'authentication_error', code: 'unauthorized' });

    const missing = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: slug, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { error: { type: string } }).error.type).toBe('authentication_error');
    // Both refusals are recorded against the app, as the Dify endpoints record theirs.
    const refusals = await ctx.database.db.query<{ error_type: string }>(
      'SELECT i.error_type FROM invocations i JOIN apps a ON a.id = i.app_id WHERE a.slug = $1',
      [slug],
    );
    expect(refusals.rows).toEqual([{ error_type: 'unauthorized' }, { error_type: 'unauthorized' }]);

    const consumer = await newConsumer();
    const unknown = await client(consumer.key)
      .chat.completions.create({ model: 'no-such-app', messages: [{ role: 'user', content: 'hi' }] })
      .catch((error) => error);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect(unknown.error).toMatchObject({ type: 'invalid_request_error', code: 'model_not_found', param: 'model' });

    const expensive = await promptApp({ price: 600 });
    const broke = await client(consumer.key)
      .chat.completions.create({ model: expensive, messages: [{ role: 'user', content: 'hi' }] })
      .catch((error) => error);
    expect(broke.status).toBe(402);
    expect(broke.error).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_credits' });
    // Counted by the rate limit before it was refused: the refusal says what is left (issue 26).
    expect(broke.headers.get('ratelimit-limit')).toMatch(/^\d+$/);
    expect(broke.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
    const difyRefusal = await fetch(`${base}/api/app/${expensive}/completion-messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${consumer.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: { query: 'hi' }, response_mode: 'blocking', user: 'u' }),
    });
    expect(difyRefusal.status, await difyRefusal.clone().text()).toBe(402);
    expect(difyRefusal.headers.get('ratelimit-limit')).toMatch(/^\d+$/);
    expect(difyRefusal.headers.get('ratelimit-reset')).toMatch(/^\d+$/);

    const capped = await client(consumer.key)
      .chat.completions.create({ model: slug, messages: [{ role: 'user', content: 'hi' }] }, { headers: { 'X-Max-Price-Cents': '50' } })
      .catch((error) => error);
    expect(capped.status).toBe(402);
    expect(capped.error.code).toBe('price_above_limit');

    const invalid = await client(consumer.key)
      // @ts-expect-error a wrong type on purpose
      .chat.completions.create({ model: slug, messages: 'hi' })
      .catch((error) => error);
    expect(invalid.status).toBe(400);
    expect(invalid.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_param', param: 'messages' });

    expect((await balances(consumer.token)).credits_cents).toBe(500);
    expect((await invocationsOf(consumer.subject)).every((row) => row.status === 'error' && row.price_cents === 0)).toBe(true);
  });

  it('a provider failure mid-stream is an error event the SDK throws, and is free', async () => {
    const slug = await promptApp();
    const consumer = await newConsumer();
    upstream.setBehaviour({ status: 500 });
    const stream = await client(consumer.key).chat.completions.create({ model: slug, messages: [{ role: 'user', content: 'hi' }], stream: true });
    const failure = await (async () => {
      for await (const _chunk of stream) {
        // drain
      }
    })().catch((error) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(failure.error).toMatchObject({ type: 'api_error', code: 'provider_error' });
    expect((await balances(consumer.token)).credits_cents).toBe(500);
  });

  it('an Idempotency-Key replays the answer without a second charge, blocking and streaming', async () => {
    const slug = await promptApp();
    const consumer = await newConsumer();
    const openai = client(consumer.key);
    const body = { model: slug, messages: [{ role: 'user' as const, content: 'once only' }] };
    const first = await openai.chat.completions.create(body, { headers: { 'Idempotency-Key': 'openai-retry-1' } });
    const again = await openai.chat.completions.create(body, { headers: { 'Idempotency-Key': 'openai-retry-1' } });
    expect(again.id).toBe(first.id);
    expect(again.choices[0]!.message.content).toBe(first.choices[0]!.message.content);
    const conflict = await openai.chat.completions
      .create({ ...body, messages: [{ role: 'user', content: 'something else' }] }, { headers: { 'Idempotency-Key': 'openai-retry-1' } })
      .catch((error) => error);
    expect(conflict.status).toBe(409);

    const streamBody = { ...body, stream: true as const, stream_options: { include_usage: true } };
    const streamed = async () => {
      let text = '';
      let usage: OpenAI.CompletionUsage | null | undefined;
      for await (const chunk of await openai.chat.completions.create(streamBody, { headers: { 'Idempotency-Key': 'openai-retry-2' } })) {
        text += chunk.choices[0]?.delta.content ?? '';
        usage ??= chunk.usage;
      }
      return { text, usage };
    };
    const firstStream = await streamed();
    await successesOf(consumer.subject, 2);
    const replayed = await streamed();
    expect(replayed).toEqual(firstStream);
    expect(replayed.usage).toEqual({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18, cost: PRICE / 100, cost_cents: PRICE });

    const successes = await successesOf(consumer.subject, 2);
    expect(successes).toHaveLength(2);
    for (const success of successes) await expectChargedOnce(success.id, consumer.subject);
    expect((await balances(consumer.token)).credits_cents).toBe(500 - 2 * PRICE);
    await expectLedgerBalanced(ctx.database.db);
  });
});

describe('rate limits', () => {
  let limited: TestContext;
  let limitedBase: string;
  beforeAll(async () => {
    limited = await createTestContext({ OPENAI_BASE_URL: upstream.baseUrl, OPENAI_API_KEY: TEST_MODEL_API_KEY, RATE_LIMIT_PER_MINUTE: '1' });
    await limited.app.listen({ port: 0, host: '127.0.0.1' });
    limitedBase = `http://127.0.0.1:${(limited.app.server.address() as AddressInfo).port}`;
  }, 180_000);
  afterAll(async () => limited?.close());

  it('answers 429 with Retry-After in the OpenAI envelope once the key used its calls', async () => {
    const owner = await limited.tokenFor('limited-owner');
    const headers = { authorization: `Bearer ${owner}`, 'content-type': 'application/json' };
    const created = await (
      await fetch(`${limitedBase}/api/app/`, { method: 'POST', headers, body: JSON.stringify({ name: 'Limited', type: 'prompt' }) })
    ).json();
    const openai = new OpenAI({ apiKey: owner, baseURL: `${limitedBase}/v1`, maxRetries: 0 });
    await aFreshMinute();
    const ok = await openai.chat.completions.create({ model: created.slug, messages: [{ role: 'user', content: 'one' }] });
    expect(ok.choices[0]!.message.content).toBe('Hello from the fake model.');
    const refused = await openai.chat.completions.create({ model: created.slug, messages: [{ role: 'user', content: 'two' }] }).catch((error) => error);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect(refused.error).toMatchObject({ type: 'rate_limit_exceeded', code: 'rate_limited' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('CORS', () => {
  const preflight = (path: string, headers = 'authorization, content-type, idempotency-key') =>
    fetch(`${base}${path}`, {
      method: 'OPTIONS',
      headers: { origin: 'http://elsewhere.example', 'access-control-request-method': 'POST', 'access-control-request-headers': headers },
    });

  it('answers preflights of the caller endpoints with 204, any origin, the caller headers and no credentials', async () => {
    for (const path of [
      '/v1/chat/completions',
      '/v1/models',
      '/v1/invoke/some-app',
      '/api/app/some-app/chat-messages',
      '/api/app/some-app/completion-messages',
    ]) {
      const response = await preflight(path);
      expect(response.status, path).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-allow-methods')).toContain('POST');
      const allowed = (response.headers.get('access-control-allow-headers') ?? '').toLowerCase();
      for (const header of ['authorization', 'content-type', 'idempotency-key']) expect(allowed).toContain(header);
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });

  it('puts Access-Control-Allow-Origin on answers and errors of the caller endpoints', async () => {
    const slug = await promptApp();
    const consumer = await newConsumer();
    const call = await fetch(`${base}/api/app/${slug}/completion-messages`, {
      method: 'POST',
      headers: { origin: 'http://elsewhere.example', authorization: `Bearer ${consumer.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: { query: 'hi' }, response_mode: 'blocking' }),
    });
    expect(call.status).toBe(200);
    expect(call.headers.get('access-control-allow-origin')).toBe('*');
    expect(call.headers.get('access-control-expose-headers')).toContain('Retry-After');
    const refused = await fetch(`${base}/v1/models`, { headers: { origin: 'http://elsewhere.example' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('keeps the management API same-origin: no CORS headers, and its preflights are not answered', async () => {
    const slug = await promptApp();
    for (const path of ['/api/keys/', '/api/app/', `/api/app/${slug}/update_status/`, `/api/app/${slug}/prompt/`, '/api/billing/balance/']) {
      const response = await preflight(path);
      expect(response.status, path).not.toBe(204);
      expect(response.headers.get('access-control-allow-origin'), path).toBeNull();
      expect(response.headers.get('access-control-allow-headers'), path).toBeNull();
    }
    const keys = await fetch(`${base}/api/keys/`, { headers: { origin: 'http://elsewhere.example', authorization: `Bearer ${ownerToken}` } });
    expect(keys.status).toBe(200);
    expect(keys.headers.get('access-control-allow-origin')).toBeNull();
  });
});
