import { describe, expect, it } from 'vitest';
import { startOpenAIFake } from '../test-support/fakes/openai-fake.ts';
import { baseRequest, collect, describeProviderContract, fakeForBlock, rejectionOf } from '../test-support/fakes/provider-contract.ts';
import { createOpenAICompatibleProvider } from './openai-compatible.ts';
import { countTokens } from './tokens.ts';

const apiKey = 'sk-test-openai-0123456789';

describeProviderContract({
  name: 'OpenAI-compatible',
  startFake: () => startOpenAIFake({ apiKey }),
  createProvider: (baseUrl) => createOpenAICompatibleProvider({ baseUrl, apiKey }),
  apiKey,
  upstreamModel: 'gpt-4',
});

describe('OpenAI-compatible: the wire format', () => {
  const fake = fakeForBlock(() => startOpenAIFake({ apiKey }));
  const provider = () => createOpenAICompatibleProvider({ baseUrl: fake.baseUrl, apiKey });

  it('posts to {base}/chat/completions with a Bearer key and maps every parameter', async () => {
    await provider().complete(
      baseRequest({ model: 'gpt-4-turbo', temperature: 0.7, maxTokens: 256, topP: 0.9, frequencyPenalty: 0.5, presencePenalty: -0.25 }),
    );
    const sent = fake.lastRequest();
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe(`Bearer ${apiKey}`);
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.body).toEqual({
      model: 'gpt-4-turbo',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Say hello.' },
      ],
      temperature: 0.7,
      max_tokens: 256,
      top_p: 0.9,
      frequency_penalty: 0.5,
      presence_penalty: -0.25,
    });
  });

  it('asks for usage when streaming', async () => {
    await collect(provider().stream(baseRequest()));
    expect(fake.lastRequest().body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('keeps a multi-turn conversation in order', async () => {
    const messages = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello!' },
      { role: 'user', content: 'How are you?' },
    ] as const;
    await provider().complete(baseRequest({ messages: [...messages] }));
    expect((fake.lastRequest().body as { messages: unknown }).messages).toEqual(messages);
  });

  it('sends images as image_url data URLs in content parts', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
    await provider().complete(baseRequest({ messages: [{ role: 'user', content: 'What is this?', images: [{ mimeType: 'image/png', data: png }] }] }));
    expect((fake.lastRequest().body as { messages: unknown }).messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
        ],
      },
    ]);
  });

  it('asks for JSON with response_format json_schema', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
    fake.setBehaviour({ text: '{"answer":"hi"}' });
    const result = await provider().complete(baseRequest({ jsonSchema: schema }));
    expect(result.text).toBe('{"answer":"hi"}');
    expect(fake.lastRequest().body).toMatchObject({ response_format: { type: 'json_schema', json_schema: { name: 'output', schema, strict: false } } });
  });

  it('sends no Authorization header without a key (Ollama, vLLM)', async () => {
    const open = await startOpenAIFake();
    try {
      await createOpenAICompatibleProvider({ baseUrl: open.baseUrl, apiKey: null }).complete(baseRequest());
      expect(open.lastRequest().headers.authorization).toBeUndefined();
    } finally {
      await open.close();
    }
  });

  it('counts tokens itself when the server reports no usage', async () => {
    fake.setBehaviour({ text: 'Counted locally, not upstream.', usage: null });
    const expected = { inputTokens: countTokens('You are terse.') + countTokens('Say hello.'), outputTokens: countTokens('Counted locally, not upstream.') };
    expect((await provider().complete(baseRequest())).usage).toEqual(expected);
    const events = await collect(provider().stream(baseRequest()));
    expect(events.at(-1)).toEqual({ type: 'done', usage: expected });
  });

  it('names a rejected key without repeating it', async () => {
    const error = await rejectionOf(createOpenAICompatibleProvider({ baseUrl: fake.baseUrl, apiKey: 'sk-wrong-key-123456' }).complete(baseRequest()));
    expect(error).toMatchObject({ code: 'provider_error' });
    expect(error.message).toBe('The OpenAI-compatible provider answered HTTP 401: Incorrect API key provided.');
  });

  it('redacts the key if the upstream echoes it', async () => {
    fake.setBehaviour({ status: 401, errorMessage: `Incorrect API key provided: ${apiKey}.` });
    const error = await rejectionOf(provider().complete(baseRequest()));
    expect(error.message).toContain('[redacted]');
    expect(error.message).not.toContain(apiKey);
  });

  it('reports an error sent inside the stream', async () => {
    const fetchStub: typeof fetch = async () =>
      new Response('data: {"error":{"message":"model overloaded"}}\n\n', { status: 200, headers: { 'content-type': 'text/event-stream' } });
    const error = await rejectionOf(collect(createOpenAICompatibleProvider({ baseUrl: 'http://stub/v1', apiKey, fetch: fetchStub }).stream(baseRequest())));
    expect(error).toMatchObject({ code: 'provider_error' });
    expect(error.message).toContain('model overloaded');
  });

  it('refuses an answer without choices', async () => {
    const fetchStub: typeof fetch = async () => Response.json({ id: 'x', object: 'chat.completion' });
    const error = await rejectionOf(createOpenAICompatibleProvider({ baseUrl: 'http://stub/v1', apiKey, fetch: fetchStub }).complete(baseRequest()));
    expect(error).toMatchObject({ code: 'provider_error' });
    expect(error.message).toContain('choices[0].message');
  });

  it('reuses one keep-alive connection across calls', async () => {
    const fresh = await startOpenAIFake();
    try {
      const client = createOpenAICompatibleProvider({ baseUrl: fresh.baseUrl, apiKey });
      // Streams included: a stream read to its end leaves its connection reusable, even when the
      // body's end arrives a little after [DONE] (chunkDelayMs also waits after the last event).
      fresh.setBehaviour({ chunkDelayMs: 20 });
      for (let round = 0; round < 3; round++) {
        await client.complete(baseRequest());
        await collect(client.stream(baseRequest()));
      }
      const ports = new Set(fresh.requests.map((request) => request.remotePort));
      expect(fresh.requests).toHaveLength(6);
      // undici may open a second connection while the first is being released, never one per call.
      expect(ports.size).toBeLessThanOrEqual(2);
    } finally {
      await fresh.close();
    }
  });
});
