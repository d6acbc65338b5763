import { describe, expect, it } from 'vitest';
import { startAnthropicFake } from '../test-support/fakes/anthropic-fake.ts';
import { baseRequest, collect, describeProviderContract, fakeForBlock, rejectionOf } from '../test-support/fakes/provider-contract.ts';
import { ANTHROPIC_DEFAULT_MAX_TOKENS, createAnthropicProvider } from './anthropic.ts';
import { jsonSchemaInstruction } from './json-output.ts';

const apiKey = 'sk-ant-test-0123456789';

describeProviderContract({
  name: 'Anthropic',
  startFake: () => startAnthropicFake({ apiKey }),
  createProvider: (baseUrl) => createAnthropicProvider({ baseUrl, apiKey }),
  apiKey,
  upstreamModel: 'claude-sonnet-4-5-20250929',
});

describe('Anthropic: the wire format', () => {
  const fake = fakeForBlock(() => startAnthropicFake({ apiKey }));
  const provider = () => createAnthropicProvider({ baseUrl: fake.baseUrl, apiKey });

  it('posts to /v1/messages with x-api-key and anthropic-version, the system prompt top-level', async () => {
    await provider().complete(baseRequest({ model: 'claude-3-haiku-20240307', maxTokens: 300, temperature: 0.4 }));
    const sent = fake.lastRequest();
    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers['x-api-key']).toBe(apiKey);
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body).toEqual({
      model: 'claude-3-haiku-20240307',
      max_tokens: 300,
      system: 'You are terse.',
      messages: [{ role: 'user', content: 'Say hello.' }],
      temperature: 0.4,
    });
  });

  it('always sends max_tokens, which the API requires', async () => {
    await provider().complete(baseRequest());
    expect(fake.lastRequest().body).toMatchObject({ max_tokens: ANTHROPIC_DEFAULT_MAX_TOKENS });
  });

  it('keeps temperature within 0..1, and sends top_p only without a temperature', async () => {
    await provider().complete(baseRequest({ temperature: 1.6, topP: 0.8, frequencyPenalty: 0.3, presencePenalty: 0.3 }));
    expect(fake.lastRequest().body).toMatchObject({ temperature: 1 });
    expect(fake.lastRequest().body).not.toHaveProperty('top_p');
    expect(fake.lastRequest().body).not.toHaveProperty('frequency_penalty');
    await provider().complete(baseRequest({ topP: 0.8 }));
    expect(fake.lastRequest().body).toMatchObject({ top_p: 0.8 });
    expect(fake.lastRequest().body).not.toHaveProperty('temperature');
  });

  it('streams with stream: true', async () => {
    await collect(provider().stream(baseRequest()));
    expect(fake.lastRequest().body).toMatchObject({ stream: true });
  });

  it('sends no system field without a system prompt, and keeps turns in order', async () => {
    const messages = [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello!' },
      { role: 'user', content: 'How are you?' },
    ] as const;
    await provider().complete(baseRequest({ messages: [...messages] }));
    expect(fake.lastRequest().body).not.toHaveProperty('system');
    expect((fake.lastRequest().body as { messages: unknown }).messages).toEqual(messages);
  });

  it('asks for JSON by an instruction appended to the system prompt', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
    await provider().complete(baseRequest({ jsonSchema: schema }));
    const system = (fake.lastRequest().body as { system: string }).system;
    expect(system.startsWith('You are terse.\n\n')).toBe(true);
    expect(system).toContain(jsonSchemaInstruction(schema));
    expect(system).toContain(JSON.stringify(schema));
  });

  it('sends images as base64 image blocks before the text', async () => {
    const jpeg = Buffer.from([0xff, 0xd8, 0xff]);
    await provider().complete(baseRequest({ messages: [{ role: 'user', content: 'Describe it', images: [{ mimeType: 'image/jpeg', data: jpeg }] }] }));
    expect((fake.lastRequest().body as { messages: unknown }).messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: jpeg.toString('base64') } },
          { type: 'text', text: 'Describe it' },
        ],
      },
    ]);
  });

  it('counts prompt-cache tokens as input', async () => {
    const fetchStub: typeof fetch = async () =>
      Response.json({
        type: 'message',
        content: [{ type: 'text', text: 'ok' }],
        usage: { input_tokens: 5, cache_creation_input_tokens: 10, cache_read_input_tokens: 20, output_tokens: 2 },
      });
    const result = await createAnthropicProvider({ apiKey, fetch: fetchStub }).complete(baseRequest());
    expect(result.usage).toEqual({ inputTokens: 35, outputTokens: 2 });
  });

  it('reports an error event sent inside the stream', async () => {
    const body =
      'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":3,"output_tokens":1}}}\n\n' +
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
    const fetchStub: typeof fetch = async () => new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    const error = await rejectionOf(collect(createAnthropicProvider({ apiKey, fetch: fetchStub }).stream(baseRequest())));
    expect(error).toMatchObject({ code: 'provider_error' });
    expect(error.message).toContain('Overloaded');
  });

  it('refuses an answer without usage', async () => {
    const fetchStub: typeof fetch = async () => Response.json({ type: 'message', content: [{ type: 'text', text: 'ok' }] });
    const error = await rejectionOf(createAnthropicProvider({ apiKey, fetch: fetchStub }).complete(baseRequest()));
    expect(error).toMatchObject({ code: 'provider_error' });
    expect(error.message).toContain('usage');
  });

  it('names a rejected key without repeating it', async () => {
    const error = await rejectionOf(createAnthropicProvider({ baseUrl: fake.baseUrl, apiKey: 'sk-ant-wrong-999999' }).complete(baseRequest()));
    expect(error.message).toBe('Anthropic answered HTTP 401: invalid x-api-key');
  });
});

describe('Anthropic: tools', () => {
  const fake = fakeForBlock(() => startAnthropicFake({ apiKey }));
  const provider = () => createAnthropicProvider({ baseUrl: fake.baseUrl, apiKey });
  const tools = [{ name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];

  it('sends tools and tool_choice as Anthropic names them, and reads tool_use blocks as tool calls, blocking and streamed', async () => {
    const result = await provider().complete(baseRequest({ tools, toolChoice: 'required' }));
    expect((fake.lastRequest().body as Record<string, unknown>).tools).toEqual([
      { name: 'get_weather', description: 'Weather', input_schema: tools[0]!.parameters },
    ]);
    expect((fake.lastRequest().body as Record<string, unknown>).tool_choice).toEqual({ type: 'any' });
    expect(result.toolCalls).toEqual([{ id: expect.stringMatching(/^toolu_/), name: 'get_weather', arguments: '{"city":"fake"}' }]);

    const pieces: Record<string, unknown>[] = [];
    const events = await collect(provider().stream(baseRequest({ tools, onEvent: (event) => pieces.push(event) })));
    expect(events.at(-1)?.type).toBe('done');
    expect(pieces[0]).toMatchObject({ type: 'tool_call_delta', index: 0, name: 'get_weather', arguments: '' });
    expect(pieces.map((piece) => piece.arguments).join('')).toBe('{"city":"fake"}');
  });

  it('sends the model’s tool calls and their results back as tool_use and tool_result blocks', async () => {
    fake.setBehaviour({ text: 'Sunny.' });
    const result = await provider().complete(
      baseRequest({
        tools,
        messages: [
          { role: 'user', content: 'Weather?' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] },
          { role: 'tool', content: '{"sky":"clear"}', toolCallId: 'toolu_1' },
        ],
      }),
    );
    expect(result.text).toBe('Sunny.');
    expect((fake.lastRequest().body as { messages: unknown[] }).messages.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '{"sky":"clear"}' }] },
    ]);
  });
});
