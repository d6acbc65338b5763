// Issue 24, over real sockets: a caller who hangs up at any event of any stream of any app type
// (prompt completion and chat, every Dify mode), on every route (Dify-compatible,
// OpenAI-compatible, Dify's workflows/run), is charged if and only if part of the answer was sent
// to it; an app with an output schema sends only a validated answer (decision 0026); a blocking
// call whose caller left is never charged.
//
// How a hang-up lands exactly after an event: the upstream fake goes silent after n frames
// (hangAfterFrames, read from a marker in the request), the caller reads until it has received
// everything the gateway forwards of those n frames, then hangs up. Nothing more can arrive, so
// the charge depends on those n frames only.
import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listenOnLoopback } from '../test-support/app.ts';
import { createDifyTestContext } from '../test-support/dify-app.ts';
import type { DifyMode } from '../test-support/fakes/dify-fake.ts';
import type { FakeProviderServer, RecordedRequest } from '../test-support/fakes/http-fake.ts';
import { sendRequest } from '../test-support/server-process.ts';
import { waitFor as readUntil } from '../test-support/wait-for.ts';

const KEY = 'app-deliveryDifyKey0001';
const PRICE = 100;
const MODEL_TEXT = 'one two three four';

/** The frame count a request's marker asks the fake to go silent after. */
const hangPoint = (request: RecordedRequest) => {
  const match = /hang-after-(\d+)-/.exec(request.rawBody);
  return match ? Number(match[1]) : null;
};

const ctx = await createDifyTestContext({ RATE_LIMIT_PER_MINUTE: '100000', PROVIDER_TIMEOUT_MS: '20000' }, { apiKey: KEY, paid: true });
const { dify } = ctx;
const base = await listenOnLoopback(ctx.app);
const port = Number(new URL(base).port);
const owner = await ctx.tokenFor('delivery-owner');
afterAll(() => ctx.close());
beforeEach(() => {
  dify.reset();
  dify.setBehaviour({ hangAfterFrames: hangPoint });
  ctx.model.resetBehaviour();
  ctx.model.setBehaviour({ hangAfterFrames: hangPoint, text: MODEL_TEXT });
});

const request = (method: string, path: string, token: string, body?: object, signal?: AbortSignal) => sendRequest(base, method, path, token, body, { signal });

/** Up to 10 s (200 reads). */
const waitFor = <T>(read: () => Promise<T | null> | T | null) => readUntil(read, 200);

interface Target {
  slug: string;
  /** A prompt app (answered by the OpenAI fake) or a Dify app. */
  prompt: boolean;
  chat: boolean;
}

let appCounter = 0;
async function liveApp(body: object): Promise<string> {
  const created = await request('POST', '/api/app/', owner, { name: `Delivery ${++appCounter}`, visibility: 'public', price_cents: PRICE, ...body });
  expect(created.status).toBe(201);
  return (await created.json()).slug as string;
}

async function promptApp(interaction: 'completion' | 'chat', outputSchema?: object): Promise<Target> {
  const slug = await liveApp({ type: 'prompt', interaction_mode: interaction });
  if (outputSchema) expect((await request('PATCH', `/api/app/${slug}/prompt/`, owner, { output_schema: outputSchema })).status).toBe(200);
  expect((await request('PATCH', `/api/app/${slug}/update_status/`, owner, { status: 'live' })).status).toBe(200);
  return { slug, prompt: true, chat: interaction === 'chat' };
}

async function difyApp(mode: DifyMode): Promise<Target> {
  dify.app.mode = mode;
  const slug = await liveApp({ type: 'workflow', provider_config: { app_id: 'dify-app', api_key: KEY, base_url: dify.baseUrl } });
  const saved = await request('PATCH', `/api/app/${slug}/workflow/`, owner, {});
  expect(saved.status).toBe(200);
  expect((await request('PATCH', `/api/app/${slug}/update_status/`, owner, { status: 'live' })).status).toBe(200);
  return { slug, prompt: false, chat: mode === 'chat' || mode === 'advanced-chat' || mode === 'agent-chat' };
}

type Route = 'dify' | 'openai' | 'workflow-run';

/** Starts a streaming call on a route, with the marker in what reaches the upstream. */
function startStream(route: Route, target: Target, marker: string, token: string, signal: AbortSignal) {
  if (route === 'openai') {
    return request(
      'POST',
      '/v1/chat/completions',
      token,
      { model: target.slug, messages: [{ role: 'user', content: marker }], stream: true, ...(target.prompt ? {} : { inputs: { marker } }) },
      signal,
    );
  }
  if (route === 'workflow-run') {
    return request('POST', `/api/app/${target.slug}/workflows/run`, token, { inputs: { marker }, response_mode: 'streaming', user: 'end-user' }, signal);
  }
  const inputs = target.prompt ? (target.chat ? {} : { query: marker }) : { marker };
  return request(
    'POST',
    `/api/app/${target.slug}/${target.chat ? 'chat' : 'completion'}-messages`,
    token,
    { inputs, ...(target.chat ? { query: marker } : {}), response_mode: 'streaming', user: 'end-user' },
    signal,
  );
}

/** What the tests read of a caller's frames (Dify events and OpenAI chunks). */
interface CallerFrame {
  event?: string;
  answer?: string;
  code?: string;
  error?: { code?: string };
  choices?: { delta?: { content?: string } }[];
}

/** The complete data frames of a caller's stream so far, parsed. */
const framesOf = (text: string) =>
  text
    .slice(0, text.lastIndexOf('\n\n') + 2)
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: ') && frame !== 'data: [DONE]')
    .map((frame) => JSON.parse(frame.slice(6)) as CallerFrame);

/** How many upstream frames a caller has received on its route (the gateway's own frames not counted). */
function forwardedCount(route: Route, text: string): number {
  const frames = framesOf(text);
  if (route === 'dify') return frames.length;
  if (route === 'openai') return frames.filter((frame) => frame.choices?.[0]?.delta?.content).length;
  return frames.filter((frame) => frame.event === 'text_chunk').length;
}

/**
 * One upstream frame as the rule sees it: forwarded to every route (text), only to the
 * Dify-compatible chat/completion routes (Dify's other events), or to none; and whether it
 * carries part of the answer.
 */
interface Frame {
  name: string;
  forwarded: 'all' | 'dify' | 'none';
  answer: boolean;
}

const forwardedOn = (frame: Frame, route: Route) => frame.forwarded === 'all' || (frame.forwarded === 'dify' && route === 'dify');

let callerCounter = 0;

/** Hangs up once the upstream sent n frames and the caller received what the gateway forwards of them; answers whether the call was charged. */
async function hangUpAfter(route: Route, target: Target, frames: Frame[], n: number): Promise<boolean> {
  const subject = `delivery-caller-${++callerCounter}`;
  const token = await ctx.tokenFor(subject);
  const marker = `hang-after-${n}-${subject}`;
  const upstream: FakeProviderServer = target.prompt ? ctx.model : dify;
  const expected = frames.slice(0, n).filter((frame) => forwardedOn(frame, route)).length;
  const abort = new AbortController();
  const response = await startStream(route, target, marker, token, abort.signal);
  expect(response.status, `${route} ${target.slug}`).toBe(200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let seen = '';
  while (forwardedCount(route, seen) < expected) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before ${expected} forwarded frames: ${seen}`);
    seen += decoder.decode(value, { stream: true });
  }
  const sent = await waitFor(() => upstream.requests.find((candidate) => candidate.rawBody.includes(marker)) ?? null);
  await waitFor(() => (sent.framesWritten >= n ? true : null));
  // Frames nothing is forwarded for leave no trace at the caller: give the gateway a moment to read them.
  await new Promise((resolve) => setTimeout(resolve, 50));
  abort.abort();
  await reader.read().catch(() => undefined);
  const row = await waitFor(async () => {
    const { rows } = await ctx.database.db.query<{ status: string; error_type: string; price_cents: number }>(
      `SELECT i.status, i.error_type, i.price_cents::int AS price_cents FROM invocations i JOIN users u ON u.id = i.caller_id WHERE u.subject = $1`,
      [subject],
    );
    return rows[0] ?? null;
  });
  const charged = row.status === 'success' && row.price_cents === PRICE;
  // Either charged, or recorded as the caller's hang-up and free: nothing in between.
  if (!charged) expect(row).toEqual({ status: 'error', error_type: 'client_disconnected', price_cents: 0 });
  return charged;
}

/** Hangs up at every frame but the last on every route, in parallel; compares each outcome with the rule. */
async function expectEveryHangUp(target: Target, routes: Route[], frames: Frame[]) {
  const points = routes.flatMap((route) => frames.slice(0, -1).map((_, n) => ({ route, n })));
  const label = ({ route, n }: { route: Route; n: number }) => `${route} after ${n === 0 ? 'nothing' : frames[n - 1]!.name} (${n})`;
  const actual = await Promise.all(points.map(async (point) => [label(point), (await hangUpAfter(point.route, target, frames, point.n)) ? 'charged' : 'free']));
  const expected = points.map((point) => [
    label(point),
    frames.slice(0, point.n).some((frame) => frame.answer && forwardedOn(frame, point.route)) ? 'charged' : 'free',
  ]);
  expect(Object.fromEntries(actual)).toEqual(Object.fromEntries(expected));
}

/** A whole stream to the end: charged, on every route. */
async function expectFullStreamsCharged(target: Target, routes: Route[]) {
  for (const route of routes) {
    const subject = `delivery-caller-${++callerCounter}`;
    const token = await ctx.tokenFor(subject);
    const response = await startStream(route, target, `full-${subject}`, token, new AbortController().signal);
    const text = await response.text();
    expect(text, route).not.toMatch(/"event":"error"|"error":\{/);
    const balance = (await (await request('GET', '/api/billing/balance/', token)).json()).credits_cents;
    expect(balance, route).toBe(500 - PRICE);
  }
}

// --- Dify streams, each event with whether it carries part of the answer -------------------------

type ScriptEvent = [event: Record<string, unknown>, answer: boolean];
const ids = { message_id: '', conversation_id: '' };
const runIds = { workflow_run_id: '' };
const message = (answer: string, event = 'message'): ScriptEvent => [{ event, ...ids, answer, created_at: 1 }, answer !== ''];
const messageEnd: ScriptEvent = [{ event: 'message_end', ...ids, id: '', metadata: { usage: { prompt_tokens: 5, completion_tokens: 3 } } }, false];
const workflowStarted: ScriptEvent = [{ event: 'workflow_started', ...runIds, data: { id: 'run', workflow_id: 'wf', created_at: 1 } }, false];
const nodeStarted = (nodeType: string): ScriptEvent => [
  { event: 'node_started', ...runIds, data: { id: `exec-${nodeType}`, node_id: nodeType, node_type: nodeType, title: nodeType, inputs: null } },
  false,
];
const nodeFinished = (nodeType: string, outputs: Record<string, unknown>, answer: boolean): ScriptEvent => [
  { event: 'node_finished', ...runIds, data: { id: `exec-${nodeType}`, node_id: nodeType, node_type: nodeType, status: 'succeeded', outputs } },
  answer,
];
const workflowFinished = (outputs: Record<string, unknown>): ScriptEvent => [
  { event: 'workflow_finished', ...runIds, data: { id: 'run', workflow_id: 'wf', status: 'succeeded', outputs, error: null, total_tokens: 9 } },
  true,
];
const thought = (fields: Record<string, unknown>, answer: boolean): ScriptEvent => [
  { event: 'agent_thought', id: 'thought-1', ...ids, position: 1, thought: '', observation: '', tool: '', tool_input: '', message_files: [], ...fields },
  answer,
];

const SCENARIOS: { name: string; mode: DifyMode; script: ScriptEvent[] }[] = [
  {
    name: 'chat: a moderation replacement before any text',
    mode: 'chat',
    script: [message(''), [{ event: 'message_replace', ...ids, answer: 'A moderated answer.', created_at: 1 }, true], message('More.'), messageEnd],
  },
  {
    name: 'chat: the answer as speech first',
    mode: 'chat',
    script: [
      message(''),
      [{ event: 'tts_message', ...ids, audio: 'UklGRiQAAABXQVZF', created_at: 1 }, true],
      message('Hi.'),
      [{ event: 'tts_message_end', ...ids, audio: '' }, false],
      messageEnd,
    ],
  },
  { name: 'completion: text', mode: 'completion', script: [message(''), message('Once'), message(' upon'), messageEnd] },
  {
    name: 'agent: a thought before the text',
    mode: 'agent-chat',
    script: [thought({}, false), thought({ thought: 'I should look this up.' }, true), message('Found it.', 'agent_message'), messageEnd],
  },
  {
    name: 'agent: a tool call, then its observation',
    mode: 'agent-chat',
    script: [
      thought({}, false),
      thought({ tool: 'current_time' }, false),
      thought({ tool: 'current_time', observation: '2026-11-27 10:00' }, true),
      message('It is ten.', 'agent_message'),
      messageEnd,
    ],
  },
  {
    name: 'agent: a generated image and no text',
    mode: 'agent-chat',
    script: [
      thought({}, false),
      [{ event: 'message_file', id: 'file-1', type: 'image', belongs_to: 'assistant', url: 'https://files.example/owl.png', ...ids }, true],
      message('', 'agent_message'),
      messageEnd,
    ],
  },
  {
    name: 'chatflow: an LLM node finishes before the answer streams',
    mode: 'advanced-chat',
    script: [
      workflowStarted,
      nodeStarted('start'),
      nodeFinished('start', { 'sys.query': 'Hello?', 'sys.user_id': 'tb-user' }, false),
      nodeStarted('llm'),
      nodeFinished('llm', { text: 'Owls are birds.' }, true),
      message('Owls are birds.'),
      workflowFinished({ answer: 'Owls are birds.' }),
      messageEnd,
    ],
  },
  {
    name: 'chatflow: an agent node logs its work',
    mode: 'advanced-chat',
    script: [
      workflowStarted,
      nodeStarted('agent'),
      [{ event: 'agent_log', ...runIds, data: { id: 'log-1', label: 'ROUND 1', status: 'success', data: { output: 'Owls hunt at night.' } } }, true],
      message('Owls hunt at night.'),
      messageEnd,
    ],
  },
  {
    name: 'workflow: the answer only in node outputs, no text chunks',
    mode: 'workflow',
    script: [
      workflowStarted,
      nodeStarted('start'),
      nodeFinished('start', { marker: 'the caller’s input' }, false),
      nodeStarted('llm'),
      nodeFinished('llm', { text: 'The whole answer.' }, true),
      nodeStarted('end'),
      nodeFinished('end', { text: 'The whole answer.' }, true),
      workflowFinished({ text: 'The whole answer.' }),
    ],
  },
  {
    name: 'workflow: an iteration’s results, then text',
    mode: 'workflow',
    script: [
      workflowStarted,
      nodeStarted('iteration'),
      [{ event: 'iteration_started', ...runIds, data: { id: 'it', node_id: 'iteration', node_type: 'iteration', inputs: {} } }, false],
      [{ event: 'iteration_next', ...runIds, data: { id: 'it', node_id: 'iteration', index: 0, pre_iteration_output: null } }, false],
      [{ event: 'iteration_next', ...runIds, data: { id: 'it', node_id: 'iteration', index: 1, pre_iteration_output: 'first' } }, true],
      [
        { event: 'iteration_completed', ...runIds, data: { id: 'it', node_id: 'iteration', node_type: 'iteration', outputs: { output: ['first', 'second'] } } },
        true,
      ],
      [{ event: 'text_chunk', ...runIds, data: { text: 'first second' } }, true],
      workflowFinished({ text: 'first second' }),
    ],
  },
  {
    name: 'workflow: nothing but structure until the outputs',
    mode: 'workflow',
    script: [
      workflowStarted,
      nodeStarted('code'),
      nodeFinished('code', {}, false),
      [{ event: 'text_chunk', ...runIds, data: { text: '' } }, false],
      workflowFinished({ result: '42' }),
    ],
  },
];

function framesOfScript(script: ScriptEvent[]): Frame[] {
  return script.map(([event, answer]) => {
    const isText = ['message', 'agent_message', 'text_chunk'].includes(String(event.event));
    const text = event.event === 'text_chunk' ? (event.data as { text: string }).text : event.answer;
    return { name: String(event.event), forwarded: isText ? (text ? 'all' : 'none') : 'dify', answer };
  });
}

describe('a Dify stream is charged if and only if part of the answer was sent, whatever event carried it', () => {
  for (const scenario of SCENARIOS) {
    it(scenario.name, async () => {
      const target = await difyApp(scenario.mode);
      dify.app.script = scenario.script.map(([event]) => event);
      const routes: Route[] = scenario.mode === 'workflow' ? ['dify', 'openai', 'workflow-run'] : ['dify', 'openai'];
      await expectEveryHangUp(target, routes, framesOfScript(scenario.script));
      await expectFullStreamsCharged(target, routes);
    });
  }
});

// --- Prompt apps: the OpenAI fake's frames -----------------------------------------------------

/** The OpenAI fake's stream of MODEL_TEXT: the role chunk, two text chunks, the finish chunk, the usage chunk, [DONE]. */
const modelFrames = (textForwarded: boolean): Frame[] => [
  { name: 'role', forwarded: 'none', answer: false },
  { name: 'text 1', forwarded: textForwarded ? 'all' : 'none', answer: textForwarded },
  { name: 'text 2', forwarded: textForwarded ? 'all' : 'none', answer: textForwarded },
  { name: 'finish', forwarded: 'none', answer: false },
  { name: 'usage', forwarded: 'none', answer: false },
  { name: '[DONE]', forwarded: 'none', answer: false },
];

describe('a prompt app’s stream is charged if and only if part of the answer was sent', () => {
  for (const interaction of ['completion', 'chat'] as const) {
    it(`${interaction} app, Dify-compatible and OpenAI-compatible`, async () => {
      const target = await promptApp(interaction);
      await expectEveryHangUp(target, ['dify', 'openai'], modelFrames(true));
      await expectFullStreamsCharged(target, ['dify', 'openai']);
    });
  }
});

// --- Output-schema apps (decision 0026) ----------------------------------------------------------

const SENTIMENT = {
  type: 'object',
  properties: { sentiment: { type: 'string', enum: ['positive', 'negative'] } },
  required: ['sentiment'],
  additionalProperties: false,
};

const balanceOf = async (token: string) => (await (await request('GET', '/api/billing/balance/', token)).json()).credits_cents as number;

describe('an app with an output schema sends only an answer that passed the schema', () => {
  let target: Target;
  beforeAll(async () => {
    target = await promptApp('completion', SENTIMENT);
  });

  it('streamed: a plain-text answer never reaches the caller and is free, on both routes', async () => {
    ctx.model.setBehaviour({ text: 'I would say the sentiment is positive overall.' });
    for (const route of ['dify', 'openai'] as const) {
      const subject = `schema-plain-${route}`;
      const token = await ctx.tokenFor(subject);
      const response = await startStream(route, target, 'I love it', token, new AbortController().signal);
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text, route).not.toContain('sentiment is positive');
      const frames = framesOf(text);
      if (route === 'dify')
        expect(
          frames.filter((frame) => frame.event === 'message'),
          route,
        ).toEqual([]);
      else expect(forwardedCount('openai', text), route).toBe(0);
      const last = frames.at(-1)!;
      expect(route === 'dify' ? last.code : last.error?.code, route).toBe('provider_error');
      expect(await balanceOf(token), route).toBe(500);
    }
  });

  it('streamed: a valid answer arrives whole, once validated, and is charged, on both routes', async () => {
    ctx.model.setBehaviour({ text: '{"sentiment": "positive"}' });
    for (const route of ['dify', 'openai'] as const) {
      const token = await ctx.tokenFor(`schema-valid-${route}`);
      const response = await startStream(route, target, 'I love it', token, new AbortController().signal);
      const frames = framesOf(await response.text());
      const chunks =
        route === 'dify'
          ? frames.filter((frame) => frame.event === 'message').map((frame) => frame.answer)
          : frames.filter((frame) => frame.choices?.[0]?.delta?.content).map((frame) => frame.choices?.[0]?.delta?.content);
      expect(chunks, route).toEqual(['{"sentiment": "positive"}']);
      expect(await balanceOf(token), route).toBe(500 - PRICE);
    }
  });

  it('streamed: a hang-up at any frame before the validated answer is free', async () => {
    ctx.model.setBehaviour({ text: '{"sentiment": "positive"}' });
    await expectEveryHangUp(target, ['dify', 'openai'], modelFrames(false));
  });

  it('blocking, on every blocking route: a plain-text answer is a free 502, a valid one is charged', async () => {
    const routes: [string, (token: string) => Promise<Response>][] = [
      ['completion-messages', (token) => request('POST', `/api/app/${target.slug}/completion-messages`, token, { inputs: { query: 'I love it' } })],
      ['invoke', (token) => request('POST', `/v1/invoke/${target.slug}`, token, { query: 'I love it' })],
      [
        'chat/completions',
        (token) => request('POST', '/v1/chat/completions', token, { model: target.slug, messages: [{ role: 'user', content: 'I love it' }] }),
      ],
    ];
    for (const [name, call] of routes) {
      const token = await ctx.tokenFor(`schema-blocking-${name}`);
      ctx.model.setBehaviour({ text: 'Positive, I think.' });
      const plain = await call(token);
      expect(plain.status, name).toBe(502);
      expect(await plain.text(), name).not.toContain('Positive, I think.');
      expect(await balanceOf(token), name).toBe(500);
      ctx.model.setBehaviour({ text: '{"sentiment": "negative"}' });
      const valid = await call(token);
      expect(valid.status, name).toBe(200);
      expect(await valid.text(), name).toContain('negative');
      expect(await balanceOf(token), name).toBe(500 - PRICE);
    }
  });
});

// --- Blocking calls whose caller left ---------------------------------------------------------

/** Sends a whole request on a raw socket and closes the connection after `afterMs` (0: at once, before the call is even prepared). */
async function sendAndHangUp(path: string, token: string, body: object, afterMs: number) {
  const json = JSON.stringify(body);
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n`;
  await new Promise<void>((resolve) => socket.write(head + json, () => resolve()));
  if (afterMs > 0) await new Promise((resolve) => setTimeout(resolve, afterMs));
  socket.destroy();
}

describe('a blocking call whose caller hung up is never charged (delivery and charge agree)', () => {
  it('hung up while the call was prepared or while the model worked, on every blocking route, prompt and Dify apps (10 each)', async () => {
    const completion = await promptApp('completion');
    const chat = await promptApp('chat');
    const workflow = await difyApp('workflow');
    // The model and Dify take their time, so an answer could only be charged if the hang-up went unnoticed.
    ctx.model.setBehaviour({ delayMs: 600 });
    dify.setBehaviour({ delayMs: 600 });
    const routes: [string, string, (slug: string) => object, string][] = [
      ['completion-messages', `/api/app/${completion.slug}/completion-messages`, () => ({ inputs: { query: 'hi' } }), completion.slug],
      ['chat-messages', `/api/app/${chat.slug}/chat-messages`, () => ({ inputs: {}, query: 'hi' }), chat.slug],
      ['invoke', `/v1/invoke/${completion.slug}`, () => ({ query: 'hi' }), completion.slug],
      ['chat/completions', '/v1/chat/completions', (slug) => ({ model: slug, messages: [{ role: 'user', content: 'hi' }] }), completion.slug],
      ['dify completion-messages', `/api/app/${workflow.slug}/completion-messages`, () => ({ inputs: {}, user: 'u' }), workflow.slug],
      ['dify workflows/run', `/api/app/${workflow.slug}/workflows/run`, () => ({ inputs: {}, response_mode: 'blocking', user: 'u' }), workflow.slug],
    ];
    const calls = routes.flatMap(([name, path, body, slug]) =>
      Array.from({ length: 10 }, (_, i) => ({ subject: `blocking-gone-${name}-${i}`, path, body, slug, i })),
    );
    const subjects = calls.map((call) => call.subject);
    // The callers' accounts exist before they call (a first request creates one).
    for (const subject of subjects) expect(await balanceOf(await ctx.tokenFor(subject))).toBe(500);
    await Promise.all(
      calls.map(async ({ subject, path, body, slug, i }) => {
        await sendAndHangUp(path, await ctx.tokenFor(subject), body(slug), i % 2 === 0 ? 0 : 200);
      }),
    );
    // Every call the model was asked for is over (aborted, or answered 600 ms later) and recorded.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await Promise.all([...ctx.model.requests, ...dify.requests].map((sent) => sent.closed));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const { rows } = await ctx.database.db.query<{ subject: string; status: string; error_type: string; price_cents: number }>(
      `SELECT u.subject, i.status, i.error_type, i.price_cents::int AS price_cents FROM invocations i JOIN users u ON u.id = i.caller_id WHERE u.subject LIKE 'blocking-gone-%'`,
    );
    const outcomes: Record<string, string> = {};
    // A caller gone before its request was even read leaves no invocation: it was never a call.
    for (const subject of subjects) outcomes[subject] = 'error client_disconnected 0';
    for (const row of rows) outcomes[row.subject] = `${row.status} ${row.error_type} ${row.price_cents}`;
    expect(rows.length, 'calls recorded').toBeGreaterThan(0);
    expect(outcomes).toEqual(Object.fromEntries(subjects.map((subject) => [subject, 'error client_disconnected 0'])));
  });
});
