// The built-in demo model: answers when a model's provider is not configured (DEMO_MODEL on), so a
// fresh install works end to end without any key. Its answer is deterministic, says it is a demo
// and quotes the rendered prompt; with a JSON schema it answers a JSON value valid against it.
// Tokens are counted with a real tokenizer, so usage and analytics behave like a real model's.
import { countPromptTokens, countTokens } from './tokens.ts';
import type { ModelProvider, ModelRequest, ModelResult, ModelStreamEvent } from './types.ts';
import { isRecord, throwIfCallerAborted } from './upstream.ts';

export const DEMO_PROVIDER_NAME = 'demo';

export function createDemoProvider(): ModelProvider {
  return {
    name: DEMO_PROVIDER_NAME,

    async complete(request: ModelRequest): Promise<ModelResult> {
      throwIfCallerAborted(request.signal);
      const text = demoAnswer(request);
      return { text, usage: { inputTokens: countPromptTokens(request.messages), outputTokens: countTokens(text) } };
    },

    async *stream(request: ModelRequest): AsyncGenerator<ModelStreamEvent> {
      throwIfCallerAborted(request.signal);
      const text = demoAnswer(request);
      for (const chunk of splitIntoChunks(text)) {
        // A real stream arrives over several turns of the event loop; so does this one.
        await new Promise((resolve) => setImmediate(resolve));
        throwIfCallerAborted(request.signal);
        yield { type: 'delta', text: chunk };
      }
      yield { type: 'done', usage: { inputTokens: countPromptTokens(request.messages), outputTokens: countTokens(text) } };
    },
  };
}

/** The demo's answer to a request: JSON for a schema, otherwise a note that quotes the prompt. */
export function demoAnswer(request: Pick<ModelRequest, 'model' | 'messages' | 'jsonSchema'>): string {
  if (request.jsonSchema) return JSON.stringify(sampleForSchema(request.jsonSchema));
  const users = request.messages.filter((message) => message.role === 'user');
  const asked = users.at(-1) ?? request.messages.at(-1);
  const images = asked?.images?.length ?? 0;
  const attachment = images === 0 ? '' : `\n\n(${images} image${images === 1 ? '' : 's'} attached)`;
  return (
    `This is a demo answer from Tollbooth's built-in demo model (no model provider is configured for "${request.model}"). ` +
    `You asked:\n\n${asked?.content ?? ''}${attachment}`
  );
}

/** Splits text into chunks of a few words each; the chunks joined are the text. */
export function splitIntoChunks(text: string, wordsPerChunk = 4): string[] {
  const words = text.match(/\s*\S+|\s+$/g) ?? [];
  const chunks: string[] = [];
  for (let index = 0; index < words.length; index += wordsPerChunk) chunks.push(words.slice(index, index + wordsPerChunk).join(''));
  return chunks.length > 0 ? chunks : [text];
}

type Schema = Record<string, unknown>;

/**
 * A deterministic value valid against a JSON Schema: required properties filled with
 * type-appropriate values (strings "demo", numbers 0, booleans false, arrays [], enums and consts
 * their first value), bent to fit common constraints (lengths, ranges, formats, minItems).
 * Local $refs, anyOf/oneOf (first branch) and allOf (merged) are followed.
 */
export function sampleForSchema(schema: unknown, root: unknown = schema, depth = 0): unknown {
  if (schema === true || schema === undefined) return 'demo';
  if (!isRecord(schema) || depth > 32) return null;
  if (typeof schema.$ref === 'string') return sampleForSchema(resolveLocalRef(root, schema.$ref), root, depth + 1);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) return sampleForSchema(mergeAllOf(schema, root), root, depth + 1);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length > 0) {
      const { [key]: _branches, ...rest } = schema;
      return sampleForSchema({ ...rest, ...(isRecord(branches[0]) ? branches[0] : {}) }, root, depth + 1);
    }
  }
  switch (schemaType(schema)) {
    case 'null':
      return null;
    case 'boolean':
      return false;
    case 'integer':
      return sampleNumber(schema, true);
    case 'number':
      return sampleNumber(schema, false);
    case 'string':
      return sampleString(schema);
    case 'array':
      return sampleArray(schema, root, depth);
    default:
      return sampleObject(schema, root, depth);
  }
}

function schemaType(schema: Schema): string {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const declared = types.find((type): type is string => typeof type === 'string' && type !== 'null') ?? (types.includes('null') ? 'null' : undefined);
  if (declared) return declared;
  if (isRecord(schema.properties) || Array.isArray(schema.required)) return 'object';
  if (schema.items !== undefined || schema.prefixItems !== undefined) return 'array';
  if (schema.minLength !== undefined || schema.maxLength !== undefined || schema.pattern !== undefined || schema.format !== undefined) return 'string';
  if (schema.minimum !== undefined || schema.maximum !== undefined) return 'number';
  return 'object';
}

function sampleNumber(schema: Schema, integer: boolean): number {
  const bound = (key: string) => (typeof schema[key] === 'number' ? (schema[key] as number) : null);
  const [minimum, maximum, exclusiveMinimum, exclusiveMaximum] = [bound('minimum'), bound('maximum'), bound('exclusiveMinimum'), bound('exclusiveMaximum')];
  const multipleOf = bound('multipleOf');
  const fits = (value: number) =>
    Number.isFinite(value) &&
    (minimum === null || value >= minimum) &&
    (maximum === null || value <= maximum) &&
    (exclusiveMinimum === null || value > exclusiveMinimum) &&
    (exclusiveMaximum === null || value < exclusiveMaximum) &&
    (!integer || Number.isInteger(value)) &&
    (multipleOf === null || multipleOf <= 0 || Number.isInteger(value / multipleOf));
  const low = Math.max(minimum ?? Number.NEGATIVE_INFINITY, exclusiveMinimum ?? Number.NEGATIVE_INFINITY);
  const high = Math.min(maximum ?? Number.POSITIVE_INFINITY, exclusiveMaximum ?? Number.POSITIVE_INFINITY);
  const step = multipleOf !== null && multipleOf > 0 ? multipleOf : 1;
  // 0 when it fits, else the first value of a few near the bounds that does.
  const candidates = [
    0,
    low,
    Math.ceil(low / step) * step,
    (Math.floor(low / step) + 1) * step,
    high,
    Math.floor(high / step) * step,
    (Math.ceil(high / step) - 1) * step,
    (low + high) / 2,
  ];
  return candidates.find(fits) ?? 0;
}

const FORMAT_SAMPLES: Record<string, string> = {
  email: 'demo@example.com',
  'idn-email': 'demo@example.com',
  uri: 'https://example.com/demo',
  url: 'https://example.com/demo',
  'uri-reference': 'https://example.com/demo',
  iri: 'https://example.com/demo',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  uuid: '00000000-0000-4000-8000-000000000000',
  date: '2024-01-01',
  time: '00:00:00Z',
  'date-time': '2024-01-01T00:00:00Z',
  duration: 'P1D',
};

function sampleString(schema: Schema): string {
  let value = (typeof schema.format === 'string' && FORMAT_SAMPLES[schema.format]) || 'demo';
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
  while ([...value].length < minLength) value += 'demo';
  if ([...value].length > maxLength) value = [...value].slice(0, Math.max(maxLength, minLength)).join('');
  return value;
}

function sampleArray(schema: Schema, root: unknown, depth: number): unknown[] {
  const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const prefixItems = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
  const items: unknown[] = [];
  for (let index = 0; index < minItems; index++) {
    items.push(sampleForSchema(index < prefixItems.length ? prefixItems[index] : schema.items, root, depth + 1));
  }
  return items;
}

function sampleObject(schema: Schema, root: unknown, depth: number): Record<string, unknown> {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [];
  const value: Record<string, unknown> = {};
  for (const name of required) {
    const property = Object.hasOwn(properties, name) ? properties[name] : isRecord(schema.additionalProperties) ? schema.additionalProperties : true;
    value[name] = sampleForSchema(property, root, depth + 1);
  }
  // Meet minProperties with the declared optional properties, in order.
  const minProperties = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
  for (const name of Object.keys(properties)) {
    if (Object.keys(value).length >= minProperties) break;
    if (!(name in value)) value[name] = sampleForSchema(properties[name], root, depth + 1);
  }
  return value;
}

function resolveLocalRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return true;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isRecord(node) || !Object.hasOwn(node, key)) return true;
    node = node[key];
  }
  return node;
}

function mergeAllOf(schema: Schema, root: unknown): Schema {
  const { allOf, ...merged } = schema;
  const parts = (allOf as unknown[]).map((part) => (isRecord(part) && typeof part.$ref === 'string' ? resolveLocalRef(root, part.$ref) : part));
  for (const part of parts) {
    if (!isRecord(part)) continue;
    for (const [key, value] of Object.entries(part)) {
      if (key === 'properties' && isRecord(value)) merged.properties = { ...(isRecord(merged.properties) ? merged.properties : {}), ...value };
      else if (key === 'required' && Array.isArray(value)) merged.required = [...(Array.isArray(merged.required) ? merged.required : []), ...value];
      else if (!(key in merged)) merged[key] = value;
    }
  }
  return merged;
}
