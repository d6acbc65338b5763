// The schema field builder's rules (spec sections 3 and 5): a list of editable fields turned into
// the spec's schema shape `{type: 'object', properties, required, additionalProperties: false}`, and
// back again when a saved prompt is edited.
import type { IoSchema } from '@tollbooth/contract';

export const FIELD_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object'] as const;
export const ITEM_TYPES = ['string', 'number', 'integer', 'boolean', 'object'] as const;

export type FieldType = (typeof FIELD_TYPES)[number];
export type ItemType = (typeof ITEM_TYPES)[number];
export type SchemaProperty = IoSchema['properties'][string];

/** Field names the server accepts as schema property names. */
export const FIELD_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const FIELD_NAME_HINT = 'Use letters, digits and underscores, starting with a letter or underscore.';

/** One field as the builder edits it: every input is text, converted when the schema is built. */
export interface SchemaField {
  /** A local key for React lists; never sent. */
  key: string;
  name: string;
  type: FieldType;
  description: string;
  required: boolean;
  /** Text for strings and numbers; "true", "false" or "" (none) for booleans; JSON for arrays and objects. */
  defaultValue: string;
  /** Allowed values, one per line. */
  allowedValues: string;
  minLength: string;
  maxLength: string;
  pattern: string;
  minimum: string;
  maximum: string;
  itemsType: ItemType;
  itemsDescription: string;
  /** Keywords the builder does not edit (e.g. nested properties), kept so a round trip loses nothing. */
  extra: Record<string, unknown>;
}

let nextKey = 1;
const newKey = () => `field-${nextKey++}`;

export function emptyField(overrides: Partial<SchemaField> = {}): SchemaField {
  return {
    key: newKey(),
    name: '',
    type: 'string',
    description: '',
    required: false,
    defaultValue: '',
    allowedValues: '',
    minLength: '',
    maxLength: '',
    pattern: '',
    minimum: '',
    maximum: '',
    itemsType: 'string',
    itemsDescription: '',
    extra: {},
    ...overrides,
  };
}

/** Which options a type offers. */
export const offersAllowedValues = (type: FieldType) => type === 'string' || type === 'number' || type === 'integer';
export const offersLength = (type: FieldType) => type === 'string';
export const offersRange = (type: FieldType) => type === 'number' || type === 'integer';

/** Blank lines dropped, the rest trimmed. */
export function parseAllowedValues(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** A numeric input: empty (or not a number) means unset. */
export function parseOptionalNumber(text: string): number | undefined {
  if (text.trim() === '') return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

function parseOptionalInteger(text: string): number | undefined {
  const value = parseOptionalNumber(text);
  return value === undefined ? undefined : Math.max(0, Math.trunc(value));
}

function parseDefault(field: SchemaField): unknown {
  const text = field.defaultValue;
  switch (field.type) {
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : undefined;
    case 'number':
      return parseOptionalNumber(text);
    case 'integer': {
      const value = parseOptionalNumber(text);
      return value !== undefined && Number.isInteger(value) ? value : undefined;
    }
    case 'array':
    case 'object': {
      if (text.trim() === '') return undefined;
      try {
        const value: unknown = JSON.parse(text);
        const matches = field.type === 'array' ? Array.isArray(value) : typeof value === 'object' && value !== null && !Array.isArray(value);
        return matches ? value : undefined;
      } catch {
        return undefined;
      }
    }
    default:
      return text === '' ? undefined : text;
  }
}

function parseEnum(field: SchemaField): unknown[] | undefined {
  if (!offersAllowedValues(field.type)) return undefined;
  const lines = parseAllowedValues(field.allowedValues);
  const values =
    field.type === 'string' ? lines : lines.map(Number).filter((value) => Number.isFinite(value) && (field.type === 'number' || Number.isInteger(value)));
  return values.length > 0 ? values : undefined;
}

/** One field as a JSON Schema property; unset options are left out. */
export function buildProperty(field: SchemaField): SchemaProperty {
  const property: Record<string, unknown> = { ...field.extra, type: field.type };
  const description = field.description.trim();
  if (description) property.description = description;
  const defaultValue = parseDefault(field);
  if (defaultValue !== undefined) property.default = defaultValue;
  const allowed = parseEnum(field);
  if (allowed) property.enum = allowed;
  if (offersLength(field.type)) {
    const minLength = parseOptionalInteger(field.minLength);
    const maxLength = parseOptionalInteger(field.maxLength);
    if (minLength !== undefined) property.minLength = minLength;
    if (maxLength !== undefined) property.maxLength = maxLength;
    if (field.pattern !== '') property.pattern = field.pattern;
  }
  if (offersRange(field.type)) {
    const minimum = parseOptionalNumber(field.minimum);
    const maximum = parseOptionalNumber(field.maximum);
    if (minimum !== undefined) property.minimum = minimum;
    if (maximum !== undefined) property.maximum = maximum;
  }
  if (field.type === 'array') {
    const itemsDescription = field.itemsDescription.trim();
    property.items = itemsDescription ? { type: field.itemsType, description: itemsDescription } : { type: field.itemsType };
  }
  return property as SchemaProperty;
}

/** The spec's schema shape. Fields without a name are left out. */
export function buildSchema(fields: readonly SchemaField[]): IoSchema {
  const named = fields.filter((field) => field.name.trim() !== '');
  const properties: IoSchema['properties'] = {};
  for (const field of named) properties[field.name.trim()] = buildProperty(field);
  return {
    type: 'object',
    properties,
    required: named.filter((field) => field.required).map((field) => field.name.trim()),
    additionalProperties: false,
  };
}

const asText = (value: unknown) => (value === undefined || value === null ? '' : String(value));
const isFieldType = (value: unknown): value is FieldType => FIELD_TYPES.includes(value as FieldType);
const isItemType = (value: unknown): value is ItemType => ITEM_TYPES.includes(value as ItemType);

const EDITED_KEYWORDS = new Set(['type', 'description', 'default', 'enum', 'minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'items']);

/** The builder's fields for a saved schema (edit mode). */
export function fieldsFromSchema(schema: IoSchema | null | undefined): SchemaField[] {
  if (!schema) return [];
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const type = isFieldType(property.type) ? property.type : 'string';
    const items = (property.items ?? {}) as { type?: unknown; description?: unknown };
    const extra = Object.fromEntries(Object.entries(property).filter(([key]) => !EDITED_KEYWORDS.has(key)));
    let defaultValue = '';
    if (property.default !== undefined) {
      defaultValue = typeof property.default === 'object' && property.default !== null ? JSON.stringify(property.default) : String(property.default);
    }
    return emptyField({
      name,
      type,
      description: asText(property.description),
      required: required.has(name),
      defaultValue,
      allowedValues: Array.isArray(property.enum) ? property.enum.map(asText).join('\n') : '',
      minLength: asText(property.minLength),
      maxLength: asText(property.maxLength),
      pattern: asText(property.pattern),
      minimum: asText(property.minimum),
      maximum: asText(property.maximum),
      itemsType: isItemType(items.type) ? items.type : 'string',
      itemsDescription: asText(items.description),
      extra,
    });
  });
}

/**
 * A value a call may send for a field: its default, else its first allowed value, else a value of
 * its type within its limits. Used for the curl example and the detail page's test inputs.
 */
export function sampleValue(name: string, property: SchemaProperty | undefined): unknown {
  if (!property) return `sample ${name}`;
  if (property.default !== undefined) return property.default;
  if (Array.isArray(property.enum) && property.enum.length > 0) return property.enum[0];
  switch (property.type) {
    case 'number':
    case 'integer': {
      const low = property.minimum ?? 1;
      const value = property.maximum !== undefined && low > property.maximum ? property.maximum : low;
      return property.type === 'integer' ? Math.ceil(value) : value;
    }
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    default: {
      let text = `sample ${name}`;
      if (property.minLength !== undefined && text.length < property.minLength) text = text.padEnd(property.minLength, '.');
      if (property.maxLength !== undefined) text = text.slice(0, property.maxLength);
      return text;
    }
  }
}
