import { describe, expect, it } from 'vitest';
import { detailTestInputs, parseSchemaText } from './prompt-detail.utils';

describe('parseSchemaText', () => {
  it('applies text that parses as a JSON object', () => {
    expect(parseSchemaText('{"type":"object","properties":{}}', { nullable: false })).toEqual({ ok: true, schema: { type: 'object', properties: {} } });
  });

  it('ignores invalid JSON', () => {
    expect(parseSchemaText('{"type": ', { nullable: false })).toEqual({ ok: false, hint: 'Invalid JSON — not applied' });
    expect(parseSchemaText('', { nullable: true })).toEqual({ ok: false, hint: 'Invalid JSON — not applied' });
  });

  it('accepts null only where the schema is optional, and no other non-object', () => {
    expect(parseSchemaText('null', { nullable: true })).toEqual({ ok: true, schema: null });
    expect(parseSchemaText('null', { nullable: false })).toEqual({ ok: false, hint: 'Must be a JSON object — not applied' });
    expect(parseSchemaText('[1]', { nullable: true })).toEqual({ ok: false, hint: 'Must be a JSON object — not applied' });
    expect(parseSchemaText('"text"', { nullable: true })).toEqual({ ok: false, hint: 'Must be a JSON object — not applied' });
  });
});

describe('detailTestInputs', () => {
  it("sends the spec's samples plus one per template variable", () => {
    const schema = { type: 'object' as const, properties: { level: { type: 'integer' as const, minimum: 3 } } };
    expect(detailTestInputs('{{topic}} at {{level}} for {{who}}', schema)).toEqual({
      topic: 'sample topic',
      message: 'sample message',
      query: 'sample query',
      level: 3,
      who: 'sample who',
    });
  });

  it('sends only inputs a real call could send when the schema takes no others', () => {
    const schema = {
      type: 'object' as const,
      properties: { query: { type: 'string' as const }, tone: { type: 'string' as const } },
      required: ['tone'],
      additionalProperties: false,
    };
    expect(detailTestInputs('A haiku about {{query}}', schema)).toEqual({ query: 'sample query', tone: 'sample tone' });
  });
});
