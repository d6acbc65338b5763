// The clients callers reach for, installed from npm and unmodified, against a listening Tollbooth
// whose prompt apps are answered by the OpenAI fake on loopback (a real provider: every answer is
// charged): the `openai` SDK, the Vercel AI SDK (`ai` with `@ai-sdk/openai`, whose default model is
// the Responses API, and `@ai-sdk/openai-compatible`) and LangChain's ChatOpenAI. Structured output
// and tools reach the model and come back in each client's own types; every call is charged once.
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { ChatOpenAI } from '@langchain/openai';
import { generateText, type LanguageModel, Output, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { listenOnLoopback, paidTestContextForFile } from '../test-support/app.ts';
import { sendJson } from '../test-support/server-process.ts';

vi.setConfig({ testTimeout: 120_000 });

const PRICE = 10;
const START = 500;

const ctx = await paidTestContextForFile({ RATE_LIMIT_PER_MINUTE: '100000' });
const base = await listenOnLoopback(ctx.app);
const ownerToken = await ctx.tokenFor('clients-owner', { name: 'Client Creator' });
const upstream = ctx.model;

const api = (method: string, path: string, token: string, body?: object) => sendJson(base, method, path, token, body);

let appCounter = 0;
async function promptApp(mode: 'completion' | 'chat' = 'chat') {
  const created = await api('POST', '/api/app/', ownerToken, {
    name: `Client App ${++appCounter}`,
    type: 'prompt',
    visibility: 'public',
    price_cents: PRICE,
    interaction_mode: mode,
  });
  expect(created.status).toBe(201);
  await api('PATCH', `/api/app/${created.body.slug}/update_status/`, ownerToken, { status: 'live' });
  return created.body.slug;
}

let consumerCounter = 0;
async function newConsumer() {
  const token = await ctx.tokenFor(`clients-consumer-${++consumerCounter}`);
  const key = await api('POST', '/api/keys/', token, { name: 'client key' });
  expect(key.status).toBe(201);
  return { token, key: key.body.key as string };
}

const credits = async (token: string) => ((await api('GET', '/api/billing/balance/', token)).body as unknown as { credits_cents: number }).credits_cents;

/** Each paid call is charged exactly once: the caller's credits lose calls × the price (settlement may trail a stream). */
async function expectCharged(token: string, calls: number) {
  for (let attempt = 0; attempt < 200; attempt++) {
    if ((await credits(token)) <= START - calls * PRICE) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  expect(await credits(token)).toBe(START - calls * PRICE);
}

const lastUpstreamBody = () => upstream.lastRequest().body as Record<string, unknown>;

const weatherSchema = {
  type: 'object',
  properties: { city: { type: 'string' }, celsius: { type: 'number' } },
  required: ['city', 'celsius'],
  additionalProperties: false,
};

/** The openai SDK against this Tollbooth, with a caller's key. */
const client = (key: string) => new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0 });

/** Through an AI SDK model: the answer's text, blocking then streamed (the stream comes back for its usage). */
async function expectOwlText(model: LanguageModel) {
  upstream.setBehaviour({ text: 'Owls hunt at night.' });
  expect((await generateText({ model, prompt: 'Tell me about owls' })).text).toBe('Owls hunt at night.');
  const streamed = streamText({ model, prompt: 'Tell me about owls' });
  let text = '';
  for await (const delta of streamed.textStream) text += delta;
  expect(text).toBe('Owls hunt at night.');
  return streamed;
}

/** Through an AI SDK model: a structured output, which the fake answers from the schema. */
async function expectStructuredOutput(model: LanguageModel) {
  upstream.setBehaviour({ json: true });
  const structured = await generateText({
    model,
    prompt: 'Weather in Paris?',
    output: Output.object({ schema: z.object({ city: z.string(), celsius: z.number() }) }),
  });
  expect(structured.output).toEqual({ city: 'fake', celsius: 1 });
}

/** The AI SDK tool the model is offered: each call's input goes into `called`. */
const weatherTool = (called: unknown[]) =>
  tool({
    description: 'Weather of a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async (input: unknown) => {
      called.push(input);
      return { celsius: 12 };
    },
  });

describe('the openai SDK', () => {
  it('chat with response_format json_schema: the schema reaches the model, the answer parses, usage.cost and the price header say what was charged', async () => {
    const slug = await promptApp();
    const consumer = await newConsumer();
    upstream.setBehaviour({ json: true });
    const { data, response } = await client(consumer.key)
      .chat.completions.create({
        model: slug,
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        response_format: { type: 'json_schema', json_schema: { name: 'weather', schema: weatherSchema, strict: true } },
      })
      .withResponse();
    expect(lastUpstreamBody().response_format).toEqual({ type: 'json_schema', json_schema: { name: 'weather', schema: weatherSchema, strict: false } });
    expect(JSON.parse(data.choices[0]!.message.content!)).toEqual({ city: 'fake', celsius: 1 });
    expect(data.usage).toMatchObject({ cost: PRICE / 100, cost_cents: PRICE });
    expect(response.headers.get('x-price-cents')).toBe(String(PRICE));
    await expectCharged(consumer.token, 1);
  });

  it('chat with tools, blocking and streaming: the model’s tool calls come back with finish_reason tool_calls, and the tool result continues', async () => {
    const slug = await promptApp();
    const consumer = await newConsumer();
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', description: 'Weather of a city', parameters: weatherSchema } }];
    const openai = client(consumer.key);

    const blocking = await openai.chat.completions.create({
      model: slug,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools,
      tool_choice: 'auto',
    });
    const sent = lastUpstreamBody();
    expect(sent.tools).toEqual(tools);
    expect(sent.tool_choice).toBe('auto');
    expect(blocking.choices[0]!.finish_reason).toBe('tool_calls');
    const call = blocking.choices[0]!.message.tool_calls![0]!;
    expect(call).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
    if (call.type !== 'function') throw new Error('not a function call');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'fake', celsius: 1 });

    // The SDK's own stream helper assembles the streamed tool-call pieces.
    const runner = openai.chat.completions.stream({ model: slug, messages: [{ role: 'user', content: 'Weather in Oslo?' }], tools });
    const streamed = await runner.finalChatCompletion();
    expect(streamed.choices[0]!.finish_reason).toBe('tool_calls');
    const streamedCall = streamed.choices[0]!.message.tool_calls![0]!;
    if (streamedCall.type !== 'function') throw new Error('not a function call');
    expect(streamedCall.function.name).toBe('get_weather');
    expect(JSON.parse(streamedCall.function.arguments)).toEqual({ city: 'fake', celsius: 1 });

    // The next step: the tool's result goes back; the model answers text.
    upstream.setBehaviour({ text: 'It is 1 degree in fake.' });
    const answer = await openai.chat.completions.create({
      model: slug,
      tools,
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        blocking.choices[0]!.message,
        { role: 'tool', tool_call_id: call.id, content: '{"celsius": 1}' },
      ],
    });
    expect(answer.choices[0]!.message.content).toBe('It is 1 degree in fake.');
    expect((lastUpstreamBody().messages as unknown[]).slice(-2)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: call.id, type: 'function', function: call.function }] },
      { role: 'tool', tool_call_id: call.id, content: '{"celsius": 1}' },
    ]);
    await expectCharged(consumer.token, 3);
  });

  it('refuses what no app honours with an OpenAI-shaped 400 naming the parameter, before any charge', async () => {
    const slug = await promptApp();
    const consumer = await newConsumer();
    const openai = client(consumer.key);
    const refused: [string, object][] = [
      ['logprobs', { logprobs: true }],
      ['top_logprobs', { top_logprobs: 3 }],
      ['functions', { functions: [{ name: 'f', parameters: {} }] }],
    ];
    for (const [param, extra] of refused) {
      const error = await openai.chat.completions
        .create({ model: slug, messages: [{ role: 'user', content: 'hi' }], ...extra })
        .catch((failure: unknown) => failure);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe(param);
    }
    await expectCharged(consumer.token, 0);
  });
});

describe('the openai SDK: models, the key and the charge of one call', () => {
  it('models.list entries carry the inputs and supported parameters; GET /v1/key and GET /v1/generation answer with the key alone', async () => {
    const slug = await promptApp('completion');
    const consumer = await newConsumer();
    const openai = client(consumer.key);
    const models: Record<string, unknown>[] = [];
    for await (const model of openai.models.list()) models.push(model as unknown as Record<string, unknown>);
    const entry = models.find((model) => model.id === slug);
    expect(entry).toMatchObject({ object: 'model', price_cents: PRICE, inputs: [{ name: 'query', required: true }] });
    expect(entry?.supported_parameters).toEqual(expect.arrayContaining(['tools', 'tool_choice', 'response_format', 'inputs']));

    const completion = await openai.chat.completions.create({ model: slug, messages: [{ role: 'user', content: 'hi' }] });
    const charge = (await openai.get('/generation', { query: { id: completion.id } })) as { data: Record<string, unknown> };
    expect(charge.data).toMatchObject({
      id: completion.id.slice('chatcmpl-'.length),
      model: slug,
      status: 'success',
      cost_cents: PRICE,
      total_cost: PRICE / 100,
    });
    const missing = await openai.get('/generation', { query: { id: 'chatcmpl-00000000-0000-4000-8000-000000000000' } }).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);

    const key = (await openai.get('/key')) as { data: Record<string, unknown> };
    expect(key.data).toMatchObject({
      name: 'client key',
      label: 'client key',
      monthly_spend_limit_cents: null,
      limit: null,
      spent_this_month_cents: PRICE,
      usage: PRICE / 100,
      credits_cents: START - PRICE,
      rate_limit: { requests: 100000, interval: '1m' },
    });
    const refused = await client('tb_notAKey')
      .get('/key')
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    await expectCharged(consumer.token, 1);
  });

  it('a creator turns caller tools and response formats off: they are refused naming the parameter, and models.list says so', async () => {
    const slug = await promptApp('chat');
    expect((await api('PATCH', `/api/app/${slug}/`, ownerToken, { caller_tools: false })).body).toMatchObject({ caller_tools: false });
    const consumer = await newConsumer();
    const openai = client(consumer.key);
    const tools = [{ type: 'function' as const, function: { name: 'f', parameters: { type: 'object', properties: {} } } }];
    const toolsError = await openai.chat.completions
      .create({ model: slug, messages: [{ role: 'user', content: 'hi' }], tools })
      .catch((error: unknown) => error);
    expect((toolsError as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('tools');
    const formatError = await openai.chat.completions
      .create({ model: slug, messages: [{ role: 'user', content: 'hi' }], response_format: { type: 'json_object' } })
      .catch((error: unknown) => error);
    expect((formatError as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('response_format');
    const model = (await openai.models.retrieve(slug)) as unknown as { supported_parameters: string[] };
    expect(model.supported_parameters).not.toContain('tools');
    await expectCharged(consumer.token, 0);
  });
});

describe('the openai SDK on the Responses API', () => {
  it('responses.create blocking: text input, instructions, usage.cost; previous_response_id continues a chat app’s conversation', async () => {
    const slug = await promptApp('chat');
    const consumer = await newConsumer();
    const openai = client(consumer.key);
    upstream.setBehaviour({ text: 'Owls hunt at night.' });
    const first = await openai.responses.create({ model: slug, input: 'Tell me about owls', instructions: 'Answer in one sentence.' });
    expect(first).toMatchObject({ object: 'response', status: 'completed', model: slug });
    expect(first.id).toMatch(/^resp_[0-9a-f]{64}$/);
    expect(first.output_text).toBe('Owls hunt at night.');
    expect(first.usage).toMatchObject({ input_tokens: 11, output_tokens: 7, total_tokens: 18, cost: PRICE / 100 });
    expect((lastUpstreamBody().messages as unknown[]).slice(1)).toEqual([
      { role: 'system', content: 'Answer in one sentence.' },
      { role: 'user', content: 'Tell me about owls' },
    ]);

    upstream.setBehaviour({ text: 'Mice, mostly.' });
    const second = await openai.responses.create({ model: slug, input: [{ role: 'user', content: 'What do they eat?' }], previous_response_id: first.id });
    expect(second.output_text).toBe('Mice, mostly.');
    expect(second.previous_response_id).toBe(first.id);
    // The stored turn goes back to the model before the new message.
    const sent = JSON.stringify(lastUpstreamBody().messages);
    expect(sent).toContain('Tell me about owls');
    expect(sent).toContain('Owls hunt at night.');
    expect(sent).toContain('What do they eat?');

    const refused = await openai.responses.create({ model: slug, input: 'x', previous_response_id: 'resp_nope' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('previous_response_id');
    await expectCharged(consumer.token, 2);
  });

  it('responses.create streaming: typed events from response.created to response.completed, the text in output_text deltas, charged once', async () => {
    const slug = await promptApp('completion');
    const consumer = await newConsumer();
    upstream.setBehaviour({ text: 'one two three four five' });
    const stream = await client(consumer.key).responses.create({ model: slug, input: 'Count to five', stream: true });
    const types: string[] = [];
    let text = '';
    let completed: OpenAI.Responses.Response | null = null;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(text).toBe('one two three four five');
    expect(types.slice(0, 4)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
    expect(types.slice(-4)).toEqual(['response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed']);
    expect(completed?.output).toMatchObject([{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'one two three four five' }] }]);
    expect(completed?.usage).toMatchObject({ input_tokens: 11, output_tokens: 7, cost: PRICE / 100 });
    await expectCharged(consumer.token, 1);
  });
});

describe('the Vercel AI SDK with @ai-sdk/openai (default model: the Responses API)', () => {
  it('generateText, streamText, Output.object and tools', async () => {
    const slug = await promptApp();
    const consumer = await newConsumer();
    const model = createOpenAI({ baseURL: `${base}/v1`, apiKey: consumer.key })(slug);

    const streamed = await expectOwlText(model);
    expect((await streamed.usage).inputTokens).toBe(11);

    await expectStructuredOutput(model);

    const called: unknown[] = [];
    const tools = { get_weather: weatherTool(called) };
    const withTools = await generateText({ model, prompt: 'Weather in Paris?', tools });
    expect(withTools.toolCalls.map((call) => call.toolName)).toEqual(['get_weather']);
    const streamedTools = streamText({ model, prompt: 'Weather in Oslo?', tools });
    expect((await streamedTools.toolCalls).map((call) => [call.toolName, call.input])).toEqual([['get_weather', { city: 'fake' }]]);
    expect(called).toEqual([{ city: 'fake' }, { city: 'fake' }]);
    await expectCharged(consumer.token, 5);
  });
});

describe('the Vercel AI SDK with @ai-sdk/openai-compatible', () => {
  const provider = (key: string) => createOpenAICompatible({ name: 'tollbooth', baseURL: `${base}/v1`, apiKey: key, supportsStructuredOutputs: true });

  it('generateText, streamText, Output.object and tools', async () => {
    const slug = await promptApp();
    const consumer = await newConsumer();
    const model = provider(consumer.key).chatModel(slug);

    await expectOwlText(model);

    await expectStructuredOutput(model);

    const called: unknown[] = [];
    const withTools = await generateText({
      model,
      prompt: 'Weather in Paris?',
      tools: { get_weather: weatherTool(called) },
      toolChoice: 'required',
    });
    expect(withTools.toolCalls.map((call) => call.toolName)).toEqual(['get_weather']);
    expect(called).toEqual([{ city: 'fake' }]);
    expect(withTools.usage.inputTokens).toBe(11);
    await expectCharged(consumer.token, 4);
  });
});

describe("LangChain's ChatOpenAI", () => {
  const chat = (key: string, slug: string) => new ChatOpenAI({ model: slug, apiKey: key, configuration: { baseURL: `${base}/v1` }, maxRetries: 0 });

  it('withStructuredOutput and bindTools', async () => {
    const slug = await promptApp();
    const consumer = await newConsumer();
    upstream.setBehaviour({ json: true });
    const weather = z.object({ city: z.string(), celsius: z.number() });
    const structured = await chat(consumer.key, slug).withStructuredOutput(weather, { name: 'weather' }).invoke('Weather in Paris?');
    expect(structured).toEqual({ city: 'fake', celsius: 1 });

    const bound = chat(consumer.key, slug).bindTools([
      { type: 'function', function: { name: 'get_weather', description: 'Weather of a city', parameters: weatherSchema } },
    ]);
    const message = await bound.invoke('Weather in Oslo?');
    expect(message.tool_calls?.map((call) => ({ name: call.name, args: call.args }))).toEqual([{ name: 'get_weather', args: { city: 'fake', celsius: 1 } }]);
    await expectCharged(consumer.token, 2);
  });
});

describe('HTTP conventions of the caller API', () => {
  it('unknown /v1 routes answer OpenAI’s envelope; a bad token gets error="invalid_token"; Accept: application/xml gets 406 before any charge; /openapi.json is served', async () => {
    const slug = await promptApp('completion');
    const consumer = await newConsumer();
    const openai = new OpenAI({ apiKey: consumer.key, baseURL: `${base}/v1`, maxRetries: 0 });
    const unknown = await openai.get('/no-such-route').catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect((unknown as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('unknown_url');

    const refused = await fetch(`${base}/v1/models`, { headers: { authorization: 'Bearer tb_wrong' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const anonymous = await fetch(`${base}/v1/models`);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="api"');

    const xml = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${consumer.key}`, 'content-type': 'application/json', accept: 'application/xml' },
      body: JSON.stringify({ model: slug, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(xml.status).toBe(406);
    expect(((await xml.json()) as { error: { param: string } }).error.param).toBe('accept');
    expect(upstream.requests.some((sent) => JSON.stringify(sent.body).includes(slug))).toBe(false);
    await expectCharged(consumer.token, 0);

    const document = await fetch(`${base}/openapi.json`, { headers: { 'accept-encoding': 'br, gzip' } });
    expect(document.status).toBe(200);
    expect(document.headers.get('content-encoding')).toMatch(/^(br|gzip)$/);
    expect(document.headers.get('cache-control')).toBe('public, max-age=300');
    const models = await fetch(`${base}/v1/models`, { headers: { authorization: `Bearer ${consumer.key}`, 'accept-encoding': 'gzip' } });
    expect(models.headers.get('content-encoding')).toBe('gzip');
    expect(((await models.json()) as { data: unknown[] }).data.length).toBeGreaterThan(1);
    const paths = ((await document.json()) as { paths: Record<string, unknown> }).paths;
    expect(Object.keys(paths)).toEqual(expect.arrayContaining(['/v1/responses', '/v1/key', '/v1/generation']));
  });

  it('Accept: application/xml gets 406 before any charge on the Dify call routes and /v1/invoke too', async () => {
    const completion = await promptApp('completion');
    const chat = await promptApp('chat');
    const consumer = await newConsumer();
    const calls = [
      [`/api/app/${completion}/completion-messages`, { inputs: { text: 'hi' }, response_mode: 'blocking', user: 'u' }],
      [`/api/app/${chat}/chat-messages`, { inputs: {}, query: 'hi', response_mode: 'streaming', user: 'u' }],
      [`/api/app/${completion}/workflows/run`, { inputs: { text: 'hi' }, response_mode: 'blocking', user: 'u' }],
      [`/v1/invoke/${completion}`, { text: 'hi' }],
    ] as const;
    for (const [path, body] of calls) {
      const refused = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${consumer.key}`, 'content-type': 'application/json', accept: 'application/xml' },
        body: JSON.stringify(body),
      });
      expect(refused.status, path).toBe(406);
      expect(((await refused.json()) as { code: string }).code, path).toBe('not_acceptable');
    }
    // q=0 refuses a type; a browser's usual Accept is fine.
    const zero = await fetch(`${base}/v1/invoke/${completion}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${consumer.key}`, 'content-type': 'application/json', accept: 'application/json;q=0, application/xml' },
      body: JSON.stringify({ text: 'hi' }),
    });
    expect(zero.status).toBe(406);
    expect(upstream.requests.some((sent) => JSON.stringify(sent.body).includes(completion) || JSON.stringify(sent.body).includes(chat))).toBe(false);
    await expectCharged(consumer.token, 0);
  });
});
