import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { buildCurlCommand, sampleInputs, shellQuote } from './curl-example';

describe('shellQuote', () => {
  it('survives a POSIX shell unchanged', () => {
    for (const text of ['plain', "it's", `{"a":"b'c\\"d"}`, '$HOME `x` !']) {
      expect(execFileSync('sh', ['-c', `printf %s ${shellQuote(text)}`]).toString()).toBe(text);
    }
  });
});

describe('sampleInputs', () => {
  const schema = {
    type: 'object' as const,
    properties: { topic: { type: 'string' as const }, count: { type: 'integer' as const, minimum: 2 } },
    required: ['topic'],
    additionalProperties: false,
  };

  it('uses entered test values, else samples of the declared fields', () => {
    expect(sampleInputs(schema, ['topic'], { topic: 'owls' })).toEqual({ topic: 'owls', count: 2 });
    expect(sampleInputs(schema, [], {})).toEqual({ topic: 'sample topic', count: 2 });
  });

  it("uses the template's variables when no field is declared", () => {
    expect(sampleInputs({ type: 'object', properties: {} }, ['query'])).toEqual({ query: 'sample query' });
  });
});

describe('buildCurlCommand', () => {
  it('invokes /v1/invoke/{slug} with a bearer key placeholder and the JSON body', () => {
    expect(buildCurlCommand({ origin: 'https://tb.example', slug: 'haiku', inputs: { topic: 'owls' } })).toBe(
      'curl -X POST https://tb.example/v1/invoke/haiku \\\n' +
        '  -H "Authorization: Bearer YOUR_API_KEY" \\\n' +
        '  -H "Content-Type: application/json" \\\n' +
        `  -d '{"topic":"owls"}'`,
    );
  });
});
