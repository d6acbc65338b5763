import { describe, expect, it } from 'vitest';
import { buildSchema, emptyField, fieldsFromSchema, parseAllowedValues, parseOptionalNumber, sampleValue } from './schema-fields.utils';

describe('parseAllowedValues', () => {
  it('drops blank lines and trims the rest', () => {
    expect(parseAllowedValues('  owls \n\n \t\n rain\r\nsnow  ')).toEqual(['owls', 'rain', 'snow']);
    expect(parseAllowedValues('\n  \n')).toEqual([]);
  });
});

describe('parseOptionalNumber', () => {
  it('leaves empty or non-numeric inputs unset', () => {
    expect(parseOptionalNumber('')).toBeUndefined();
    expect(parseOptionalNumber('   ')).toBeUndefined();
    expect(parseOptionalNumber('abc')).toBeUndefined();
    expect(parseOptionalNumber('0')).toBe(0);
    expect(parseOptionalNumber('-1.5')).toBe(-1.5);
  });
});

describe('buildSchema', () => {
  it("produces the spec's shape, even without fields", () => {
    expect(buildSchema([])).toEqual({ type: 'object', properties: {}, required: [], additionalProperties: false });
  });

  it('keeps only the options a type offers and leaves empty ones out', () => {
    const schema = buildSchema([
      emptyField({
        name: 'topic',
        required: true,
        description: '  Subject  ',
        allowedValues: ' a \n\n b ',
        minLength: '1',
        maxLength: '',
        pattern: '^\\w+$',
        minimum: '5',
      }),
      emptyField({ name: 'score', type: 'number', allowedValues: '1.5\nx\n2', minimum: '', maximum: '10', minLength: '3', defaultValue: '2' }),
      emptyField({ name: 'count', type: 'integer', allowedValues: '1\n2.5\n3', defaultValue: '2.5' }),
      emptyField({ name: 'formal', type: 'boolean', defaultValue: '', allowedValues: 'true' }),
      emptyField({ name: 'strict', type: 'boolean', defaultValue: 'false' }),
      emptyField({ name: 'tags', type: 'array', itemsType: 'string', itemsDescription: '', defaultValue: '["a"]' }),
      emptyField({ name: 'meta', type: 'object', defaultValue: '{not json' }),
      emptyField({ name: '   ', required: true }),
    ]);
    expect(schema).toEqual({
      type: 'object',
      properties: {
        topic: { type: 'string', description: 'Subject', enum: ['a', 'b'], minLength: 1, pattern: '^\\w+$' },
        score: { type: 'number', default: 2, enum: [1.5, 2], maximum: 10 },
        count: { type: 'integer', enum: [1, 3] },
        formal: { type: 'boolean' },
        strict: { type: 'boolean', default: false },
        tags: { type: 'array', default: ['a'], items: { type: 'string' } },
        meta: { type: 'object' },
      },
      required: ['topic'],
      additionalProperties: false,
    });
  });

  it('sets a boolean default of true', () => {
    expect(buildSchema([emptyField({ name: 'on', type: 'boolean', defaultValue: 'true' })]).properties.on).toEqual({ type: 'boolean', default: true });
  });
});

describe('fieldsFromSchema', () => {
  it('round-trips a saved schema, keeping keywords the builder does not edit', () => {
    const schema = {
      type: 'object' as const,
      properties: {
        topic: { type: 'string' as const, description: 'Subject', enum: ['owls', 'rain'], maxLength: 20, pattern: '^[a-z]+$', default: 'owls' },
        size: { type: 'integer' as const, minimum: 1, maximum: 3 },
        flag: { type: 'boolean' as const, default: false },
        tags: { type: 'array' as const, items: { type: 'number' as const, description: 'Scores' } },
        meta: { type: 'object' as const, properties: { a: { type: 'string' } }, default: { a: 'x' } },
      },
      required: ['topic', 'size'],
      additionalProperties: false,
    };
    const fields = fieldsFromSchema(schema);
    expect(fields.map((field) => [field.name, field.required])).toEqual([
      ['topic', true],
      ['size', true],
      ['flag', false],
      ['tags', false],
      ['meta', false],
    ]);
    expect(fields[0]?.allowedValues).toBe('owls\nrain');
    expect(fields[2]?.defaultValue).toBe('false');
    expect(buildSchema(fields)).toEqual(schema);
  });

  it('has no fields for a missing schema', () => {
    expect(fieldsFromSchema(null)).toEqual([]);
  });
});

describe('sampleValue', () => {
  it('uses the default, then the first allowed value, then a value of the type within its limits', () => {
    expect(sampleValue('topic', { type: 'string', default: 'owls', enum: ['rain'] })).toBe('owls');
    expect(sampleValue('topic', { type: 'string', enum: ['rain', 'snow'] })).toBe('rain');
    expect(sampleValue('topic', { type: 'string' })).toBe('sample topic');
    expect(sampleValue('topic', { type: 'string', minLength: 15 })).toBe('sample topic...');
    expect(sampleValue('topic', { type: 'string', maxLength: 3 })).toBe('sam');
    expect(sampleValue('count', { type: 'integer', minimum: 2.5 })).toBe(3);
    expect(sampleValue('count', { type: 'number', maximum: -1 })).toBe(-1);
    expect(sampleValue('on', { type: 'boolean' })).toBe(true);
    expect(sampleValue('tags', { type: 'array' })).toEqual([]);
    expect(sampleValue('meta', { type: 'object' })).toEqual({});
    expect(sampleValue('free', undefined)).toBe('sample free');
  });
});
