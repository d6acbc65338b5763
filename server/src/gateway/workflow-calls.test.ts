// Paid calls to workflow apps, end to end over real sockets: Tollbooth → the Dify fake on loopback.
// The charging rules are the prompt apps': reserve, call, settle on success, release on any
// provider failure; streams are charged once part of the answer was sent, free before.
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { listenOnLoopback } from '../test-support/app.ts';
import { createDifyTestContext, workflowAppFields } from '../test-support/dify-app.ts';
import { type DifyFakeApp, difyBody } from '../test-support/fakes/dify-fake.ts';
import { sendRequest } from '../test-support/server-process.ts';
import { waitFor } from '../test-support/wait-for.ts';

const KEY = 'app-secretDifyKey0000LAST';
const PRICE = 100;
const ctx = await createDifyTestContext({ RATE_LIMIT_PER_MINUTE: '100000' }, { apiKey: KEY });
const { dify } = ctx;
const base = await listenOnLoopback(ctx.app);
const owner = await ctx.tokenFor('wf-owner', { name: 'Flow Owner' });
afterAll(() => ctx.close());
beforeEach(() => dify.reset());

const request = (method: string, path: string, token: string, body?: object, signal?: AbortSignal) => sendRequest(base, method, path, token, body, { signal });

let appCounter = 0;
/** A live public workflow app wrapping the fake's app (as it is configured now). */
async function liveWorkflowApp(app: Partial<DifyFakeApp> = {}, settings: object = {}) {
  Object.assign(dify.app, app);
  const created = await request('POST', '/api/app/', owner, workflowAppFields(dify, KEY, `Paid Flow ${++appCounter}`, PRICE));
  expect(created.status).toBe(201);
  const { slug } = await created.json();
  const saved = await request('PATCH', `/api/app/${slug}/workflow/`, owner, { ...settings });
  expect(saved.status).toBe(200);
  expect((await saved.json()).app_info.mode).toBe(dify.app.mode);
  await request('PATCH', `/api/app/${slug}/update_status/`, owner, { status: 'live' });
  return slug as string;
}

let consumerCounter = 0;
const newConsumer = async () => {
  const subject = `wf-consumer-${++consumerCounter}`;
  return { subject, token: await ctx.tokenFor(subject) };
};

const balance = async (token: string) => ((await (await request('GET', '/api/billing/balance/', token)).json()) as { credits_cents: number }).credits_cents;

const invocationsOf = async (subject: string) =>
  (
    await ctx.database.db.query<{ status: string; error_type: string; price_cents: number; input_tokens: number; output_tokens: number }>(
      `SELECT i.status, i.error_type, i.price_cents::int AS price_cents, i.input_tokens, i.output_tokens
       FROM invocations i JOIN users u ON u.id = i.caller_id WHERE u.subject = $1 ORDER BY i.created_at`,
      [subject],
    )
  ).rows;

/** The subject's invocations once at least one is recorded (a failure is recorded after the answer). */
const recordedInvocationsOf = (subject: string) =>
  waitFor(async () => {
    const found = await invocationsOf(subject);
    return found.length > 0 ? found : null;
  });

/** The consumer left before the answer ended: one call recorded as client_disconnected, nothing charged (the 500 cents it started with left). */
async function expectLeftUncharged(consumer: { subject: string; token: string }) {
  const rows = await recordedInvocationsOf(consumer.subject);
  expect(rows).toEqual([{ status: 'error', error_type: 'client_disconnected', price_cents: 0, input_tokens: 0, output_tokens: 0 }]);
  expect(await balance(consumer.token)).toBe(500);
}

const chat = (slug: string, token: string, body: object = {}, signal?: AbortSignal) =>
  request('POST', `/api/app/${slug}/chat-messages`, token, { inputs: {}, query: 'Hello?', response_mode: 'blocking', user: 'end-user-7', ...body }, signal);

const parseEvents = (text: string) =>
  text
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: '))
    .map((frame) => JSON.parse(frame.slice(6)) as Record<string, unknown>);

describe('a blocking call to a Dify chat app', () => {
  it('answers in Dify format with Tollbooth ids, charges the flat price once and records Dify’s tokens', async () => {
    const slug = await liveWorkflowApp({ mode: 'chat' });
    expect((await (await request('GET', `/api/app/${slug}/`, owner)).json()).call_mode).toBe('chat');
    const consumer = await newConsumer();
    dify.setBehaviour({ text: 'Hi from Dify.', usage: { inputTokens: 21, outputTokens: 5 } });
    const response = await chat(slug, consumer.token);
    expect(response.status).toBe(200);
    const answer = await response.json();
    expect(answer).toMatchObject({ event: 'message', mode: 'chat', answer: 'Hi from Dify.' });
    expect(answer.metadata.usage).toMatchObject({ input_tokens: 21, output_tokens: 5, prompt_tokens: 21, completion_tokens: 5 });
    const upstream = dify.lastRequest();
    expect(upstream.path).toBe('/v1/chat-messages');
    expect(upstream.headers.authorization).toBe(`Bearer ${KEY}`);
    const sent = difyBody(upstream);
    expect(sent).toMatchObject({ query: 'Hello?', response_mode: 'blocking', conversation_id: '' });
    // The user sent upstream identifies the caller without their account id or subject.
    const { rows } = await ctx.database.db.query<{ id: string }>('SELECT id FROM users WHERE subject = $1', [consumer.subject]);
    expect(sent.user).toMatch(/^tb-[0-9a-f]{32}$/);
    expect(sent.user).not.toContain(rows[0]!.id);
    // Tollbooth's own conversation id, not Dify's.
    expect([...dify.conversations.keys()]).not.toContain(answer.conversation_id);
    expect(await balance(consumer.token)).toBe(500 - PRICE);
    expect(await invocationsOf(consumer.subject)).toEqual([{ status: 'success', error_type: '', price_cents: PRICE, input_tokens: 21, output_tokens: 5 }]);
  });

  it('continues the conversation in Dify; another caller’s conversation id is 404; max_iterations turns at most', async () => {
    const slug = await liveWorkflowApp({ mode: 'advanced-chat' }, { max_iterations: 2 });
    const consumer = await newConsumer();
    const first = await (await chat(slug, consumer.token)).json();
    const difyConversation = difyBody(dify.lastRequest()).conversation_id;
    expect(difyConversation).toBe('');
    const second = await chat(slug, consumer.token, { query: 'And then?', conversation_id: first.conversation_id });
    expect(second.status).toBe(200);
    expect((await second.json()).conversation_id).toBe(first.conversation_id);
    const continued = difyBody(dify.lastRequest()).conversation_id!;
    expect(dify.conversations.has(continued)).toBe(true);

    const other = await newConsumer();
    const stolen = await chat(slug, other.token, { conversation_id: first.conversation_id });
    expect(stolen.status).toBe(404);
    expect((await stolen.json()).message).toBe('Conversation Not Exists.');

    const before = dify.requests.length;
    const third = await chat(slug, consumer.token, { conversation_id: first.conversation_id });
    expect(third.status).toBe(400);
    expect((await third.json()).params).toBe('conversation_id');
    expect(dify.requests.length).toBe(before);
    expect(await balance(consumer.token)).toBe(500 - 2 * PRICE);
    expect(await balance(other.token)).toBe(500);
  });

  it('rejects inputs that break the Dify input form with 400 before any money moves or Dify is called', async () => {
    const slug = await liveWorkflowApp({
      mode: 'chat',
      userInputForm: [
        { 'text-input': { label: 'Topic', variable: 'topic', required: true, max_length: 10 } },
        { select: { label: 'Tone', variable: 'tone', required: false, options: ['calm', 'loud'] } },
      ],
    });
    const consumer = await newConsumer();
    const before = dify.requests.length;
    for (const [inputs, field] of [
      [{}, 'inputs.topic'],
      [{ topic: 'x'.repeat(11) }, 'inputs.topic'],
      [{ topic: 'owls', tone: 'angry' }, 'inputs.tone'],
    ] as const) {
      const response = await chat(slug, consumer.token, { inputs });
      expect(response.status).toBe(400);
      expect((await response.json()).params).toBe(field);
    }
    expect(dify.requests.length).toBe(before);
    expect(await balance(consumer.token)).toBe(500);
    const ok = await chat(slug, consumer.token, { inputs: { topic: 'owls', tone: 'calm' } });
    expect(ok.status).toBe(200);
    expect(difyBody(dify.lastRequest()).inputs).toEqual({ topic: 'owls', tone: 'calm' });
  });

  it('keeps no turn text when logging is off', async () => {
    const slug = await liveWorkflowApp({ mode: 'chat' }, { enable_logging: false });
    const consumer = await newConsumer();
    const answer = await (await chat(slug, consumer.token, { query: 'private question' })).json();
    const { rows } = await ctx.database.db.query('SELECT content FROM conversation_messages WHERE conversation_id = $1', [answer.conversation_id]);
    expect(rows).toEqual([]);
    const logged = await liveWorkflowApp({ mode: 'chat' });
    const kept = await (await chat(logged, consumer.token, { query: 'public question' })).json();
    const keptRows = await ctx.database.db.query('SELECT role, content FROM conversation_messages WHERE conversation_id = $1 ORDER BY id', [
      kept.conversation_id,
    ]);
    expect(keptRows.rows).toEqual([
      { role: 'user', content: 'public question' },
      { role: 'assistant', content: 'Hello from the fake model.' },
    ]);
  });
});

describe('other Dify app modes', () => {
  it('completion apps go through completion-messages', async () => {
    const slug = await liveWorkflowApp({ mode: 'completion', userInputForm: [{ paragraph: { label: 'Text', variable: 'text', required: true } }] });
    const consumer = await newConsumer();
    const response = await request('POST', `/api/app/${slug}/completion-messages`, consumer.token, {
      inputs: { text: 'Summarize me' },
      response_mode: 'blocking',
    });
    expect(response.status).toBe(200);
    expect((await response.json()).answer).toBe('Hello from the fake model.');
    expect(dify.lastRequest().path).toBe('/v1/completion-messages');
    expect(await balance(consumer.token)).toBe(400);
    // The detail page and the console show the route its mode takes (issue 25), read from the app.
    expect((await (await request('GET', `/api/app/${slug}/`, owner)).json()).call_mode).toBe('completion');
    expect((await (await request('GET', `/api/app/${slug}/`, consumer.token)).json()).call_mode).toBe('completion');
  });

  it('workflow apps go through /workflows/run with the outputs as the answer, blocking and streaming', async () => {
    const slug = await liveWorkflowApp({ mode: 'workflow' });
    const consumer = await newConsumer();
    dify.setBehaviour({ text: 'Workflow result', usage: { inputTokens: 3, outputTokens: 9 } });
    const blocking = await request('POST', `/api/app/${slug}/completion-messages`, consumer.token, { inputs: {}, response_mode: 'blocking' });
    expect(blocking.status).toBe(200);
    expect((await blocking.json()).answer).toBe('Workflow result');
    expect(dify.lastRequest().path).toBe('/v1/workflows/run');
    const streaming = await request('POST', `/api/app/${slug}/completion-messages`, consumer.token, { inputs: {}, response_mode: 'streaming' });
    const events = parseEvents(await streaming.text());
    expect(
      events
        .filter((event) => event.event === 'message')
        .map((event) => event.answer)
        .join(''),
    ).toBe('Workflow result');
    expect(events.at(-1)).toMatchObject({ event: 'message_end' });
    expect(await balance(consumer.token)).toBe(300);
    const rows = await invocationsOf(consumer.subject);
    expect(rows.map((row) => row.output_tokens)).toEqual([12, 12]);
  });

  it('a failed workflow run is not charged', async () => {
    const slug = await liveWorkflowApp({ mode: 'workflow' });
    dify.app.workflowStatus = 'failed';
    const consumer = await newConsumer();
    const response = await request('POST', `/api/app/${slug}/completion-messages`, consumer.token, { inputs: {}, response_mode: 'blocking' });
    expect(response.status).toBe(502);
    expect(await balance(consumer.token)).toBe(500);
    expect((await invocationsOf(consumer.subject))[0]).toMatchObject({ status: 'error', error_type: 'provider_workflow_failed', price_cents: 0 });
  });

  it('agent apps, which cannot block, are streamed upstream and answered blocking', async () => {
    const slug = await liveWorkflowApp({ mode: 'agent-chat' });
    const consumer = await newConsumer();
    dify.setBehaviour({ text: 'Agent answer here' });
    const response = await chat(slug, consumer.token);
    expect(response.status).toBe(200);
    expect((await response.json()).answer).toBe('Agent answer here');
    expect(difyBody(dify.lastRequest())).toMatchObject({ response_mode: 'streaming' });
    expect(await balance(consumer.token)).toBe(400);
  });
});

describe('provider failures are never charged and are recorded with their type', () => {
  /** Dify answers 400 with this error code. */
  const difyError = (code: string) => () => {
    dify.setBehaviour({ status: 400 });
    dify.app.errorCode = code;
  };
  const cases: [string, () => void, number, string][] = [
    ['HTTP 500', () => dify.setBehaviour({ status: 500 }), 502, 'provider_error'],
    ['HTTP 400 completion_request_error', difyError('completion_request_error'), 502, 'provider_error'],
    ['a key that stopped working (401)', () => dify.setBehaviour({ status: 401 }), 502, 'provider_auth_failed'],
    ['quota exhausted', difyError('provider_quota_exceeded'), 502, 'provider_quota_exceeded'],
    ['Dify rate limit (429)', () => dify.setBehaviour({ status: 429 }), 502, 'provider_rate_limited'],
    ['an answer that is not JSON', () => dify.setBehaviour({ malformed: true }), 502, 'provider_error'],
  ];
  for (const [name, setUp, status, type] of cases) {
    it(name, async () => {
      const slug = await liveWorkflowApp({ mode: 'chat' });
      const consumer = await newConsumer();
      setUp();
      const response = await chat(slug, consumer.token);
      expect(response.status).toBe(status);
      const body = await response.text();
      expect(body).not.toContain(KEY);
      expect(await balance(consumer.token)).toBe(500);
      expect(await invocationsOf(consumer.subject)).toEqual([{ status: 'error', error_type: type, price_cents: 0, input_tokens: 0, output_tokens: 0 }]);
    });
  }

  it('the app timeout bounds the upstream call: 504 provider_timeout, not charged', async () => {
    const slug = await liveWorkflowApp({ mode: 'chat' }, { timeout_seconds: 1 });
    const consumer = await newConsumer();
    dify.setBehaviour({ delayMs: 3000 });
    const started = Date.now();
    const response = await chat(slug, consumer.token);
    expect(response.status).toBe(504);
    expect((await response.json()).code).toBe('provider_timeout');
    expect(Date.now() - started).toBeLessThan(2800);
    expect(await balance(consumer.token)).toBe(500);
    expect((await invocationsOf(consumer.subject))[0]).toMatchObject({ status: 'error', error_type: 'provider_timeout' });
  });

  it('an error event after HTTP 200 in a stream: the caller gets an error event and is not charged', async () => {
    const slug = await liveWorkflowApp({ mode: 'chat' });
    const consumer = await newConsumer();
    dify.app.errorEventAfterChunks = 1;
    dify.setBehaviour({ text: 'one two three four five six' });
    const response = await chat(slug, consumer.token, { response_mode: 'streaming' });
    const events = parseEvents(await response.text());
    expect(events.some((event) => event.event === 'message')).toBe(true);
    expect(events.at(-1)).toMatchObject({ event: 'error', code: 'provider_error' });
    expect(await balance(consumer.token)).toBe(500);
    expect((await invocationsOf(consumer.subject))[0]).toMatchObject({ status: 'error', price_cents: 0 });
  });

  it('a stream Dify cuts before message_end is not charged', async () => {
    const slug = await liveWorkflowApp({ mode: 'chat' });
    const consumer = await newConsumer();
    dify.setBehaviour({ text: 'one two three four five six', cutStreamAfterChunks: 2 });
    const response = await chat(slug, consumer.token, { response_mode: 'streaming' });
    const events = parseEvents(await response.text());
    expect(events.at(-1)).toMatchObject({ event: 'error' });
    expect(await balance(consumer.token)).toBe(500);
  });
});

describe('streaming', () => {
  it('passes Dify’s answer through as message events with Tollbooth ids, then message_end; charged once', async () => {
    const slug = await liveWorkflowApp({ mode: 'chat' });
    const consumer = await newConsumer();
    dify.setBehaviour({ text: 'Streaming answer from Dify' });
    const response = await chat(slug, consumer.token, { response_mode: 'streaming' });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = parseEvents(await response.text());
    const messages = events.filter((event) => event.event === 'message');
    expect(messages.map((event) => event.answer).join('')).toBe('Streaming answer from Dify');
    const end = events.at(-1)!;
    expect(end.event).toBe('message_end');
    expect(messages.every((event) => event.conversation_id === end.conversation_id)).toBe(true);
    expect([...dify.conversations.keys()]).not.toContain(end.conversation_id);
    expect(await balance(consumer.token)).toBe(400);
  });

  it('a caller who leaves before any answer chunk pays nothing, and the upstream is aborted', async () => {
    const slug = await liveWorkflowApp({ mode: 'chat' });
    const consumer = await newConsumer();
    dify.setBehaviour({ delayMs: 2000 });
    const before = dify.requests.length;
    const abort = new AbortController();
    const response = await chat(slug, consumer.token, { response_mode: 'streaming' }, abort.signal);
    expect(response.status).toBe(200);
    // A streaming client reads the body as it comes; then it goes away.
    const reading = response
      .body!.getReader()
      .read()
      .catch(() => undefined);
    await waitFor(async () => (dify.requests[before] ? true : null));
    abort.abort();
    await reading;
    await dify.requests[before]!.closed;
    expect(dify.requests[before]!.aborted).toBe(true);
    await expectLeftUncharged(consumer);
  });

  it('a caller who leaves after the first chunk is charged once, the upstream is aborted and asked to stop', async () => {
    const slug = await liveWorkflowApp({ mode: 'chat' });
    const consumer = await newConsumer();
    dify.setBehaviour({ text: Array.from({ length: 40 }, (_, i) => `word${i}`).join(' '), chunkDelayMs: 50 });
    const before = dify.requests.length;
    const abort = new AbortController();
    const response = await chat(slug, consumer.token, { response_mode: 'streaming' }, abort.signal);
    const reader = response.body!.getReader();
    let seen = '';
    while (!seen.includes('"event":"message"')) seen += new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    await dify.requests[before]!.closed;
    expect(dify.requests[before]!.aborted).toBe(true);
    const rows = await recordedInvocationsOf(consumer.subject);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'success', price_cents: PRICE });
    expect(await balance(consumer.token)).toBe(400);
    await waitFor(async () => (dify.stops.length > 0 ? true : null));
  });
});

describe('files', () => {
  it('a Tollbooth upload is sent to Dify first and referenced by Dify’s file id', async () => {
    const slug = await liveWorkflowApp({ mode: 'chat' });
    const consumer = await newConsumer();
    const form = new FormData();
    form.append('file', new Blob(['plain text content'], { type: 'text/plain' }), 'notes.txt');
    const uploaded = await fetch(`${base}/api/app/${slug}/file-upload/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${consumer.token}` },
      body: form,
    });
    expect(uploaded.status).toBe(201);
    const file = await uploaded.json();
    const response = await chat(slug, consumer.token, { files: [{ type: 'document', transfer_method: 'local_file', upload_file_id: file.id }] });
    expect(response.status).toBe(200);
    const upload = dify.uploads.at(-1)!;
    expect(upload).toMatchObject({ name: 'notes.txt', content: 'plain text content' });
    expect(difyBody(dify.lastRequest()).files).toEqual([{ type: 'document', transfer_method: 'local_file', upload_file_id: upload.id }]);
    expect(upload.user).toBe(difyBody(dify.lastRequest()).user);
  });
});

describe('concurrency', () => {
  it('with credits for exactly K calls, 10·K concurrent calls give K successes and charge exactly K', async () => {
    const slug = await liveWorkflowApp({ mode: 'chat' });
    const consumer = await newConsumer();
    const K = 500 / PRICE;
    const responses = await Promise.all(Array.from({ length: 10 * K }, () => chat(slug, consumer.token)));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(K);
    expect(statuses.filter((status) => status === 402)).toHaveLength(9 * K);
    expect(await balance(consumer.token)).toBe(0);
    const { rows } = await ctx.database.db.query<{ total: number }>('SELECT coalesce(sum(amount_cents), 0)::bigint AS total FROM ledger_entries');
    expect(Number(rows[0]!.total)).toBe(0);
  });
});

describe('included calls (a subscription to the app’s plan) cover workflow calls like prompt calls', () => {
  it('one covered call: free for the caller, Dify called once, the plan’s count moves by one; a failed call gives it back', async () => {
    const slug = await liveWorkflowApp({ mode: 'chat' });
    const plan = await request('POST', `/api/app/${slug}/packages/`, owner, { name: 'Flow Trial', price: 0, included_calls: 2 });
    expect(plan.status).toBe(201);
    const consumer = await newConsumer();
    const sub = await (await request('POST', `/api/app/${slug}/subscriptions/`, consumer.token, { package_id: (await plan.json()).id })).json();
    const used = async () => (await (await request('GET', `/api/app/${slug}/subscriptions/${sub.id}/`, consumer.token)).json()).included_calls_used as number;
    const before = dify.requests.length;
    expect((await chat(slug, consumer.token)).status).toBe(200);
    expect(dify.requests.length - before).toBe(1);
    expect(await used()).toBe(1);
    expect(await balance(consumer.token)).toBe(500);
    dify.setBehaviour({ status: 500 });
    expect((await chat(slug, consumer.token)).status).toBe(502);
    dify.resetBehaviour();
    expect(await used()).toBe(1);
    expect((await chat(slug, consumer.token, { response_mode: 'streaming' })).status).toBe(200);
    expect(await used()).toBe(2);
    // Used up: the next call is paid from credits.
    expect((await chat(slug, consumer.token)).status).toBe(200);
    expect(await balance(consumer.token)).toBe(500 - PRICE);
    expect((await invocationsOf(consumer.subject)).map((row) => [row.status, row.price_cents])).toEqual([
      ['success', 0],
      ['error', 0],
      ['success', 0],
      ['success', PRICE],
    ]);
  });

  it('10×K concurrent calls with K included calls and credit for 5 more: exactly K covered, 5 paid, the rest refused before Dify', async () => {
    const K = 4;
    const slug = await liveWorkflowApp({ mode: 'chat' });
    const plan = await (await request('POST', `/api/app/${slug}/packages/`, owner, { name: 'Flow Plan', price: 0, included_calls: K })).json();
    const consumer = await newConsumer();
    const sub = await (await request('POST', `/api/app/${slug}/subscriptions/`, consumer.token, { package_id: plan.id })).json();
    const before = dify.requests.length;
    const responses = await Promise.all(Array.from({ length: 10 * K }, () => chat(slug, consumer.token)));
    const statuses = responses.map((response) => response.status);
    const paid = 500 / PRICE;
    const others = await Promise.all(responses.filter((response) => response.status !== 200 && response.status !== 402).map((response) => response.text()));
    expect(others, 'statuses other than 200 and 402').toEqual([]);
    expect(statuses.filter((status) => status === 200)).toHaveLength(K + paid);
    expect(statuses.filter((status) => status === 402)).toHaveLength(10 * K - K - paid);
    expect(dify.requests.length - before).toBe(K + paid);
    expect((await (await request('GET', `/api/app/${slug}/subscriptions/${sub.id}/`, consumer.token)).json()).included_calls_used).toBe(K);
    expect(await balance(consumer.token)).toBe(0);
    const rows = (await invocationsOf(consumer.subject)).filter((row) => row.status === 'success');
    expect(rows.filter((row) => row.price_cents === 0)).toHaveLength(K);
    expect(rows.filter((row) => row.price_cents === PRICE)).toHaveLength(paid);
    const { rows: ledger } = await ctx.database.db.query<{ total: number }>('SELECT coalesce(sum(amount_cents), 0)::bigint AS total FROM ledger_entries');
    expect(Number(ledger[0]!.total)).toBe(0);
  });
});

describe('secrets', () => {
  it('the creator’s Dify key is nowhere in the database in plaintext', async () => {
    await liveWorkflowApp({ mode: 'chat' });
    const tables = ['apps', 'workflow_versions', 'workflow_configs', 'invocations', 'conversations', 'conversation_messages'];
    for (const table of tables) {
      const { rows } = await ctx.database.db.query(`SELECT * FROM ${table}`);
      expect(JSON.stringify(rows), table).not.toContain(KEY);
      expect(JSON.stringify(rows), table).not.toContain('0000LAST');
    }
  });
});

describe('Dify’s other stream events reach a streaming caller, with Tollbooth’s ids', () => {
  /** No id Dify made for a task, message or conversation appears anywhere in what the caller got. */
  const expectNoDifyIds = (text: string) => {
    for (const taskId of dify.tasks.keys()) expect(text).not.toContain(taskId);
    for (const conversationId of dify.conversations.keys()) expect(text).not.toContain(conversationId);
  };

  it('agent thoughts, files, speech and a moderation replacement, in order, with the call’s task and conversation ids', async () => {
    const slug = await liveWorkflowApp({
      mode: 'agent-chat',
      extraEvents: [
        { event: 'message_file', id: 'file-1', type: 'image', belongs_to: 'assistant', url: 'https://files.example/1.png' },
        { event: 'tts_message', audio: 'UklGRg==', created_at: 1 },
        { event: 'message_replace', answer: 'Replaced by moderation', created_at: 1 },
      ],
    });
    const consumer = await newConsumer();
    dify.setBehaviour({ text: 'one two three four' });
    const response = await chat(slug, consumer.token, { response_mode: 'streaming' });
    const text = await response.text();
    const events = parseEvents(text);
    expect(events.map((event) => event.event)).toEqual([
      'agent_thought',
      'message',
      'message_file',
      'tts_message',
      'message_replace',
      'message',
      'message_end',
    ]);
    const first = events.find((event) => event.event === 'message')!;
    const end = events.at(-1)!;
    for (const event of events.slice(0, -1)) {
      expect(event.task_id, String(event.event)).toBe(first.task_id);
      if ('message_id' in event) expect(event.message_id, String(event.event)).toBe(first.message_id);
      if ('conversation_id' in event) expect(event.conversation_id, String(event.event)).toBe(end.conversation_id);
    }
    expect(events[2]).toMatchObject({ id: 'file-1', url: 'https://files.example/1.png' });
    expect(events[4]).toMatchObject({ answer: 'Replaced by moderation' });
    expectNoDifyIds(text);
    expect(await balance(consumer.token)).toBe(500 - PRICE);
  });

  it('a workflow app’s run and node events, with the run id replaced by Tollbooth’s', async () => {
    const slug = await liveWorkflowApp({ mode: 'workflow' });
    const consumer = await newConsumer();
    dify.setBehaviour({ text: 'Flow output here' });
    const response = await request('POST', `/api/app/${slug}/completion-messages`, consumer.token, { inputs: {}, response_mode: 'streaming' });
    const text = await response.text();
    const events = parseEvents(text);
    expect(events.map((event) => event.event)).toEqual([
      'workflow_started',
      'node_started',
      'message',
      'message',
      'node_finished',
      'workflow_finished',
      'message_end',
    ]);
    const taskId = events.find((event) => event.event === 'message')!.task_id;
    for (const event of events.slice(0, -1)) expect(event.task_id).toBe(taskId);
    expect(events[0]).toMatchObject({ workflow_run_id: taskId, data: { id: taskId, workflow_id: 'wf' } });
    expect(events[5]).toMatchObject({ workflow_run_id: taskId, data: { id: taskId, status: 'succeeded', outputs: { text: 'Flow output here' } } });
    expectNoDifyIds(text);
    expect(await balance(consumer.token)).toBe(500 - PRICE);
  });

  it('a blocking call to an agent app gathers the answer and applies a moderation replacement', async () => {
    const slug = await liveWorkflowApp({ mode: 'agent-chat', extraEvents: [{ event: 'message_replace', answer: 'Safe answer.', created_at: 1 }] });
    const consumer = await newConsumer();
    dify.setBehaviour({ text: 'one two three four' });
    const answer = await (await chat(slug, consumer.token)).json();
    expect(answer.answer).toBe('Safe answer. three four');
  });
});

describe('Dify’s stop endpoint when an answer ends before Dify ends it', () => {
  it('a blocking call to an agent app whose caller goes away: the upstream is aborted and the task stopped, nothing charged', async () => {
    const slug = await liveWorkflowApp({ mode: 'agent-chat' });
    const consumer = await newConsumer();
    // Dify sends the agent's first thought (with its task id), then nothing more.
    dify.setBehaviour({ hangAfterChunks: 0 });
    const before = dify.requests.length;
    const stopsBefore = dify.stopRequests.length;
    const abort = new AbortController();
    const response = chat(slug, consumer.token, {}, abort.signal).catch(() => null);
    await waitFor(async () => (dify.requests[before] ? true : null));
    // Time for Tollbooth to read the first event, generous for a loaded machine.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    abort.abort();
    await response;
    await dify.requests[before]!.closed;
    expect(dify.requests[before]!.aborted).toBe(true);
    const stop = await waitFor(async () => dify.stopRequests[stopsBefore] ?? null);
    expect(stop.known).toBe(true);
    expect(stop.user).toBe(difyBody(dify.requests[before]!).user);
    expect(dify.requests.find((r) => r.path === `/v1/chat-messages/${stop.taskId}/stop`)).toBeTruthy();
    await expectLeftUncharged(consumer);
  });

  it('a blocking call to a workflow app that times out: 504, the run stopped at /workflows/tasks/{id}/stop, nothing charged', async () => {
    const slug = await liveWorkflowApp({ mode: 'workflow' }, { timeout_seconds: 1 });
    const consumer = await newConsumer();
    dify.setBehaviour({ hangAfterChunks: 0 });
    const stopsBefore = dify.stopRequests.length;
    const response = await request('POST', `/api/app/${slug}/completion-messages`, consumer.token, { inputs: {}, response_mode: 'blocking' });
    expect(response.status).toBe(504);
    const stop = await waitFor(async () => dify.stopRequests[stopsBefore] ?? null);
    expect(stop.known).toBe(true);
    expect(dify.requests.some((r) => r.path === `/v1/workflows/tasks/${stop.taskId}/stop`)).toBe(true);
    expect(await balance(consumer.token)).toBe(500);
    expect((await invocationsOf(consumer.subject))[0]).toMatchObject({ status: 'error', error_type: 'provider_timeout', price_cents: 0 });
  });

  it('a streaming workflow call whose caller leaves before any answer chunk: free, upstream aborted, run stopped', async () => {
    const slug = await liveWorkflowApp({ mode: 'workflow' });
    const consumer = await newConsumer();
    dify.setBehaviour({ hangAfterChunks: 0 });
    const before = dify.requests.length;
    const stopsBefore = dify.stopRequests.length;
    const abort = new AbortController();
    const response = await request('POST', `/api/app/${slug}/completion-messages`, consumer.token, { inputs: {}, response_mode: 'streaming' }, abort.signal);
    const reader = response.body!.getReader();
    // The run's first events reach the caller (they are not part of the answer), then it leaves.
    let seen = '';
    while (!seen.includes('"event":"node_started"')) seen += new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    await dify.requests[before]!.closed;
    expect(dify.requests[before]!.aborted).toBe(true);
    const stop = await waitFor(async () => dify.stopRequests[stopsBefore] ?? null);
    expect(stop.known).toBe(true);
    await expectLeftUncharged(consumer);
  });

  it('a finished answer is not stopped', async () => {
    const slug = await liveWorkflowApp({ mode: 'agent-chat' });
    const consumer = await newConsumer();
    const stopsBefore = dify.stopRequests.length;
    expect((await chat(slug, consumer.token)).status).toBe(200);
    expect((await chat(slug, consumer.token, { response_mode: 'streaming' })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(dify.stopRequests.length).toBe(stopsBefore);
  });
});
