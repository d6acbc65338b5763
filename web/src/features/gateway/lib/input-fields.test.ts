import type { IoSchema } from '@tollbooth/contract';
import { describe, expect, it } from 'vitest';
import { buildInputs, extraInputFields, parseInputValue } from './input-fields';

const schema: IoSchema = {
  type: 'object',
  properties: {
    query: { type: 'string' },
    topic: { type: 'string', description: 'Subject' },
    count: { type: 'integer' },
    ratio: { type: 'number' },
    formal: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    tone: { type: 'string', enum: ['calm', 'loud'] },
  },
  required: ['query', 'topic'],
  additionalProperties: false,
};

describe('extraInputFields', () => {
  it('lists every property but query, with its type, description, required flag and allowed values', () => {
    const fields = extraInputFields(schema);
    expect(fields.map((field) => field.name)).toEqual(['topic', 'count', 'ratio', 'formal', 'tags', 'tone']);
    expect(fields[0]).toEqual({ name: 'topic', type: 'string', description: 'Subject', required: true, options: null });
    expect(fields[5]?.options).toEqual(['calm', 'loud']);
    expect(extraInputFields(undefined)).toEqual([]);
  });
});

describe('parseInputValue and buildInputs', () => {
  const fields = extraInputFields(schema);
  const field = (name: string) => fields.find((candidate) => candidate.name === name) ?? fields[0]!;

  it('turns text into the JSON value of the field type', () => {
    expect(parseInputValue(field('count'), '3')).toBe(3);
    expect(parseInputValue(field('ratio'), '0.5')).toBe(0.5);
    expect(parseInputValue(field('count'), 'three')).toBe('three');
    expect(parseInputValue(field('formal'), 'false')).toBe(false);
    expect(parseInputValue(field('tags'), '["a","b"]')).toEqual(['a', 'b']);
    expect(parseInputValue(field('tags'), '[oops')).toBe('[oops');
    expect(parseInputValue(field('topic'), '  ')).toBeUndefined();
  });

  it('leaves empty fields out and adds query last', () => {
    expect(buildInputs(fields, { topic: 'owls', count: '', formal: 'true' }, 'Write')).toEqual({ topic: 'owls', formal: true, query: 'Write' });
    expect(buildInputs(fields, { topic: 'owls' })).toEqual({ topic: 'owls' });
  });
});
