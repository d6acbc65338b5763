import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { countTokens as referenceCount } from 'gpt-tokenizer/encoding/cl100k_base';
import { describe, expect, it } from 'vitest';
import { baseRequest, collect, rejectionOf } from '../test-support/fakes/provider-contract.ts';
import { createDemoProvider, demoAnswer, sampleForSchema, splitIntoChunks } from './demo.ts';
import type { ModelRequest } from './types.ts';

const demo = createDemoProvider();
const request = (overrides: Partial<ModelRequest> = {}) =>
  baseRequest({
    model: 'gpt-4-turbo',
    messages: [
      { role: 'system', content: 'You are a helpful travel agent.' },
      { role: 'user', content: 'Plan a weekend in Lisbon for two, with a budget of €500.' },
    ],
    ...overrides,
  });

describe('the demo model', () => {
  it('says it is a demo, names the model and quotes the prompt', async () => {
    const { text } = await demo.complete(request());
    expect(text).toBe(
      'This is a demo answer from Tollbooth\'s built-in demo model (no model provider is configured for "gpt-4-turbo"). You asked:\n\n' +
        'Plan a weekend in Lisbon for two, with a budget of €500.',
    );
  });

  it('is deterministic', async () => {
    expect(await demo.complete(request())).toEqual(await demo.complete(request()));
  });

  it('quotes the last user message of a conversation and mentions attached images', async () => {
    const text = demoAnswer({
      model: 'claude3',
      messages: [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'reply' },
        { role: 'user', content: 'second', images: [{ mimeType: 'image/png', data: Buffer.from([1]) }] },
      ],
    });
    expect(text.endsWith('You asked:\n\nsecond\n\n(1 image attached)')).toBe(true);
  });

  it('counts tokens with a real tokenizer', async () => {
    const { text, usage } = await demo.complete(request());
    expect(usage).toEqual({
      inputTokens: referenceCount('You are a helpful travel agent.') + referenceCount('Plan a weekend in Lisbon for two, with a budget of €500.'),
      outputTokens: referenceCount(text),
    });
    // A real tokenizer, not a word or character count.
    expect(usage.outputTokens).not.toBe(text.split(/\s+/).length);
    expect(usage.outputTokens).toBeLessThan(text.length);
  });

  it('treats special-token text in a prompt as plain text', async () => {
    const { usage } = await demo.complete(request({ messages: [{ role: 'user', content: 'ignore <|endoftext|> this' }] }));
    expect(usage.inputTokens).toBeGreaterThan(3);
  });

  it('streams the same answer in a few word chunks, then done with the same usage', async () => {
    const blocking = await demo.complete(request());
    const events = await collect(demo.stream(request()));
    const deltas = events.flatMap((event) => (event.type === 'delta' ? [event.text] : []));
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe(blocking.text);
    expect(events.at(-1)).toEqual({ type: 'done', usage: blocking.usage });
  });

  it('stops streaming with an AbortError when the caller aborts', async () => {
    const controller = new AbortController();
    const iterator = demo.stream(request({ signal: controller.signal }))[Symbol.asyncIterator]();
    await iterator.next();
    controller.abort();
    const error = await rejectionOf(iterator.next());
    expect(error.name).toBe('AbortError');
    expect((await rejectionOf(demo.complete(request({ signal: AbortSignal.abort() })))).name).toBe('AbortError');
  });

  it('splits text into chunks that join back exactly', () => {
    for (const text of ['', 'one', '  leading and trailing  ', 'a\n\nb  c\td e f g h i j']) {
      expect(splitIntoChunks(text).join('')).toBe(text);
    }
  });
});

describe('the demo model with a JSON schema', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);

  const schemas: Record<string, object> = {
    'required properties of each type': {
      type: 'object',
      properties: {
        title: { type: 'string' },
        count: { type: 'integer' },
        score: { type: 'number' },
        done: { type: 'boolean' },
        tags: { type: 'array', items: { type: 'string' } },
        mood: { enum: ['happy', 'sad'] },
        optional: { type: 'string' },
      },
      required: ['title', 'count', 'score', 'done', 'tags', 'mood'],
      additionalProperties: false,
    },
    'nested objects and arrays with minimums': {
      type: 'object',
      properties: {
        author: {
          type: 'object',
          properties: { name: { type: 'string', minLength: 10 }, email: { type: 'string', format: 'email' } },
          required: ['name', 'email'],
        },
        items: { type: 'array', minItems: 2, items: { type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] } },
        rating: { type: 'integer', minimum: 1, maximum: 5 },
        ratio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
        even: { type: 'integer', minimum: 3, multipleOf: 2 },
        code: { type: 'string', maxLength: 2 },
        when: { type: 'string', format: 'date-time' },
        site: { type: 'string', format: 'uri' },
      },
      required: ['author', 'items', 'rating', 'ratio', 'even', 'code', 'when', 'site'],
    },
    'refs, anyOf, oneOf, allOf and const': {
      $defs: { point: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x', 'y'] } },
      type: 'object',
      properties: {
        origin: { $ref: '#/$defs/point' },
        label: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'null' }] },
        value: { oneOf: [{ type: 'integer', minimum: 7 }, { type: 'string' }] },
        merged: {
          allOf: [
            { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
            { properties: { b: { const: 42 } }, required: ['b'] },
          ],
        },
        nullable: { type: ['null', 'string'] },
      },
      required: ['origin', 'label', 'value', 'merged', 'nullable'],
    },
    'a top-level array': { type: 'array', minItems: 1, items: { type: 'string' } },
    'a top-level string': { type: 'string' },
    'an object without properties': { type: 'object' },
  };

  for (const [name, schema] of Object.entries(schemas)) {
    it(`answers JSON valid against ${name}`, async () => {
      const { text, usage } = await demo.complete(request({ jsonSchema: schema }));
      const value = JSON.parse(text);
      const valid = ajv.validate(schema, value);
      expect(ajv.errors ?? [], text).toEqual([]);
      expect(valid).toBe(true);
      expect(usage.outputTokens).toBe(referenceCount(text));
    });
  }

  it('fills strings with "demo", numbers with 0, booleans with false, arrays with [] and enums with their first value', () => {
    expect(sampleForSchema(schemas['required properties of each type'])).toEqual({ title: 'demo', count: 0, score: 0, done: false, tags: [], mood: 'happy' });
  });

  it('streams the JSON answer whole', async () => {
    const schema = schemas['required properties of each type'] as object;
    const events = await collect(demo.stream(request({ jsonSchema: schema })));
    const text = events.flatMap((event) => (event.type === 'delta' ? [event.text] : [])).join('');
    expect(ajv.validate(schema, JSON.parse(text))).toBe(true);
  });
});
