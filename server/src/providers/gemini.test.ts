import { describe, expect, it } from 'vitest';
import { startGeminiFake } from '../test-support/fakes/gemini-fake.ts';
import { baseRequest, collect, describeProviderContract, fakeForBlock, rejectionOf } from '../test-support/fakes/provider-contract.ts';
import { createGeminiProvider, toGeminiSchema } from './gemini.ts';
import { jsonSchemaInstruction } from './json-output.ts';

const apiKey = 'AIza-test-gemini-0123456789';

describeProviderContract({
  name: 'Gemini',
  startFake: () => startGeminiFake({ apiKey }),
  createProvider: (baseUrl) => createGeminiProvider({ baseUrl, apiKey }),
  apiKey,
  upstreamModel: 'gemini-2.5-pro',
});

describe('Gemini: the wire format', () => {
  const fake = fakeForBlock(() => startGeminiFake({ apiKey }));
  const provider = () => createGeminiProvider({ baseUrl: fake.baseUrl, apiKey });

  it('posts to :generateContent with the key in x-goog-api-key, the system prompt as systemInstruction', async () => {
    await provider().complete(baseRequest({ model: 'gemini-2.5-pro', temperature: 0.7, topP: 0.95, maxTokens: 1000, frequencyPenalty: 0.5 }));
    const sent = fake.lastRequest();
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-pro:generateContent');
    expect(sent.query).toEqual({});
    expect(sent.headers['x-goog-api-key']).toBe(apiKey);
    expect(sent.body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'Say hello.' }] }],
      systemInstruction: { parts: [{ text: 'You are terse.' }] },
      generationConfig: { temperature: 0.7, topP: 0.95, maxOutputTokens: 1000, frequencyPenalty: 0.5 },
    });
  });

  it('streams from :streamGenerateContent?alt=sse', async () => {
    await collect(provider().stream(baseRequest({ model: 'gemini-2.5-flash' })));
    const sent = fake.lastRequest();
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent');
    expect(sent.query).toEqual({ alt: 'sse' });
  });

  it('names the assistant role model, leaves zero penalties out, and sends no empty generationConfig', async () => {
    await provider().complete(
      baseRequest({
        frequencyPenalty: 0,
        presencePenalty: 0,
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: 'Hello!' },
          { role: 'user', content: 'How are you?' },
        ],
      }),
    );
    expect(fake.lastRequest().body).toEqual({
      contents: [
        { role: 'user', parts: [{ text: 'Hi' }] },
        { role: 'model', parts: [{ text: 'Hello!' }] },
        { role: 'user', parts: [{ text: 'How are you?' }] },
      ],
    });
  });

  it('sends images as inlineData parts', async () => {
    const webp = Buffer.from('RIFF0000WEBP');
    await provider().complete(baseRequest({ messages: [{ role: 'user', content: 'What is it?', images: [{ mimeType: 'image/webp', data: webp }] }] }));
    expect((fake.lastRequest().body as { contents: unknown }).contents).toEqual([
      { role: 'user', parts: [{ inlineData: { mimeType: 'image/webp', data: webp.toString('base64') } }, { text: 'What is it?' }] },
    ]);
  });

  it('asks for JSON natively with responseMimeType and a responseSchema in Gemini’s dialect', async () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { title: { type: 'string' }, score: { type: ['number', 'null'] }, tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } } },
      required: ['title'],
      additionalProperties: false,
    };
    await provider().complete(baseRequest({ jsonSchema: schema }));
    const body = fake.lastRequest().body as { generationConfig: unknown; systemInstruction: unknown };
    expect(body.generationConfig).toEqual({
      responseMimeType: 'application/json',
      responseSchema: {
        type: 'OBJECT',
        properties: {
          title: { type: 'STRING' },
          score: { type: 'NUMBER', nullable: true },
          tags: { type: 'ARRAY', items: { type: 'STRING', enum: ['a', 'b'] } },
        },
        propertyOrdering: ['title', 'score', 'tags'],
        required: ['title'],
      },
    });
    expect(body.systemInstruction).toEqual({ parts: [{ text: 'You are terse.' }] });
  });

  it('asks by instruction when the schema is beyond Gemini’s dialect', async () => {
    const schema = { type: 'object', properties: { kind: { const: 'x' } }, required: ['kind'] };
    await provider().complete(baseRequest({ jsonSchema: schema }));
    const body = fake.lastRequest().body as { generationConfig: Record<string, unknown>; systemInstruction: { parts: { text: string }[] } };
    expect(body.generationConfig).toEqual({ responseMimeType: 'application/json' });
    expect(body.systemInstruction.parts[0]?.text).toBe(`You are terse.\n\n${jsonSchemaInstruction(schema)}`);
  });

  it('counts thinking tokens as output', async () => {
    const fetchStub: typeof fetch = async () =>
      Response.json({
        candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' }],
        usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 1, thoughtsTokenCount: 30, totalTokenCount: 35 },
      });
    const result = await createGeminiProvider({ apiKey, fetch: fetchStub }).complete(baseRequest());
    expect(result).toEqual({ text: 'ok', usage: { inputTokens: 4, outputTokens: 31 } });
  });

  it('maps a blocked prompt to provider_error', async () => {
    const fetchStub: typeof fetch = async () =>
      Response.json({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 4, totalTokenCount: 4 } });
    const error = await rejectionOf(createGeminiProvider({ apiKey, fetch: fetchStub }).complete(baseRequest()));
    expect(error).toMatchObject({ code: 'provider_error' });
    expect(error.message).toContain('SAFETY');
  });

  it('maps an empty answer stopped for safety to provider_error', async () => {
    const fetchStub: typeof fetch = async () =>
      new Response(`data: ${JSON.stringify({ candidates: [{ finishReason: 'SAFETY', index: 0 }], usageMetadata: { promptTokenCount: 4 } })}\r\n\r\n`, {
        headers: { 'content-type': 'text/event-stream' },
      });
    const error = await rejectionOf(collect(createGeminiProvider({ apiKey, fetch: fetchStub }).stream(baseRequest())));
    expect(error).toMatchObject({ code: 'provider_error' });
    expect(error.message).toContain('finishReason SAFETY');
  });

  it('names a rejected key without repeating it', async () => {
    const error = await rejectionOf(createGeminiProvider({ baseUrl: fake.baseUrl, apiKey: 'AIza-wrong-999999' }).complete(baseRequest()));
    expect(error.message).toBe('Gemini answered HTTP 400: API key not valid. Please pass a valid API key.');
  });
});

describe('toGeminiSchema', () => {
  it('converts types to upper case and type unions with null to nullable', () => {
    expect(toGeminiSchema({ type: 'integer', minimum: 1, maximum: 5, description: 'stars' })).toEqual({
      type: 'INTEGER',
      minimum: 1,
      maximum: 5,
      description: 'stars',
    });
    expect(toGeminiSchema({ type: ['string', 'null'] })).toEqual({ type: 'STRING', nullable: true });
  });

  it('keeps the formats Gemini knows and drops the others', () => {
    expect(toGeminiSchema({ type: 'string', format: 'date-time' })).toEqual({ type: 'STRING', format: 'date-time' });
    expect(toGeminiSchema({ type: 'string', format: 'email' })).toEqual({ type: 'STRING' });
  });

  it('infers the type from properties, items or a string enum', () => {
    expect(toGeminiSchema({ properties: { a: { type: 'boolean' } } })).toEqual({
      type: 'OBJECT',
      properties: { a: { type: 'BOOLEAN' } },
      propertyOrdering: ['a'],
    });
    expect(toGeminiSchema({ items: { type: 'number' } })).toEqual({ type: 'ARRAY', items: { type: 'NUMBER' } });
    expect(toGeminiSchema({ enum: ['x', 'y'] })).toEqual({ type: 'STRING', enum: ['x', 'y'] });
  });

  it('keeps anyOf', () => {
    expect(toGeminiSchema({ anyOf: [{ type: 'string' }, { type: 'number' }] })).toEqual({ anyOf: [{ type: 'STRING' }, { type: 'NUMBER' }] });
  });

  it('gives up on what Gemini cannot express', () => {
    for (const schema of [
      { $ref: '#/$defs/x', $defs: { x: { type: 'string' } } },
      { oneOf: [{ type: 'string' }] },
      { allOf: [{ type: 'string' }] },
      { const: 1 },
      { type: ['string', 'number'] },
      { type: 'object' },
      { type: 'object', properties: {} },
      { type: 'array' },
      { type: 'integer', enum: [1, 2] },
      { type: 'object', properties: { nested: { not: { type: 'string' } } } },
      true,
      [],
    ]) {
      expect(toGeminiSchema(schema)).toBeNull();
    }
  });
});

describe('Gemini: tools', () => {
  const fake = fakeForBlock(() => startGeminiFake({ apiKey: apiKey }));
  const provider = () => createGeminiProvider({ baseUrl: fake.baseUrl, apiKey: apiKey });
  const tools = [{ name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];

  it('declares the tools, reads functionCall parts as tool calls (blocking and streamed), and sends calls and results back', async () => {
    const result = await provider().complete(baseRequest({ tools, toolChoice: { name: 'get_weather' } }));
    const sent = fake.lastRequest().body as Record<string, unknown>;
    expect(sent.tools).toEqual([{ functionDeclarations: [{ name: 'get_weather', description: 'Weather', parametersJsonSchema: tools[0]!.parameters }] }]);
    expect(sent.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } });
    expect(result.toolCalls).toEqual([{ id: expect.any(String), name: 'get_weather', arguments: '{"city":"fake"}' }]);

    const pieces: Record<string, unknown>[] = [];
    const events = await collect(provider().stream(baseRequest({ tools, onEvent: (event) => pieces.push(event) })));
    expect(events.at(-1)?.type).toBe('done');
    expect(pieces).toEqual([{ type: 'tool_call_delta', index: 0, id: expect.any(String), name: 'get_weather', arguments: '{"city":"fake"}' }]);

    fake.setBehaviour({ text: 'Sunny.' });
    const answer = await provider().complete(
      baseRequest({
        tools,
        messages: [
          { role: 'user', content: 'Weather?' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] },
          { role: 'tool', content: '{"sky":"clear"}', toolCallId: 'c1', toolName: 'get_weather' },
        ],
      }),
    );
    expect(answer.text).toBe('Sunny.');
    expect((fake.lastRequest().body as { contents: unknown[] }).contents.slice(1)).toEqual([
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { sky: 'clear' } } }] },
    ]);
  });
});
