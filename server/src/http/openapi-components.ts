// Named component schemas in the OpenAPI document. Every shared shape of the contract (an object,
// array or union of objects exported by @tollbooth/contract) is documented once, under
// #/components/schemas/<its export name>, and request bodies and responses refer to it, also where
// one shape nests another (CallAnswer → CallUsage). This happens in @fastify/swagger's `transform`,
// which only shapes the document: routes keep validating and serializing with the very schemas
// they declare. Parameters (path, query, headers) stay inline, as OpenAPI lists them one by one.
import * as contract from '@tollbooth/contract';
import type { FastifySchema } from 'fastify';
import { IsKind } from 'typebox';

export const SCHEMAS_PATH = '#/components/schemas/';

type Schema = Record<string, unknown>;

const isRecord = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

// Keywords whose value is a schema or a list of schemas, and those whose value maps names to
// schemas; everything else (enum, const, default, examples…) is data and is left as it is.
const SCHEMA_KEYWORDS = new Set([
  'items',
  'additionalItems',
  'additionalProperties',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'allOf',
  'anyOf',
  'oneOf',
]);
const SCHEMA_MAP_KEYWORDS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

const sortedKeys = (_key: string, value: unknown) =>
  isRecord(value) ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : value;

/** A shape with named fields: an object with properties, or an array or union of such. */
function hasFields(schema: Schema): boolean {
  if (isRecord(schema.properties) && Object.keys(schema.properties).length > 0) return true;
  if (isRecord(schema.items)) return hasFields(schema.items);
  const members = schema.anyOf ?? schema.oneOf;
  return Array.isArray(members) && members.some((member) => isRecord(member) && hasFields(member));
}

/** The contract's shapes worth a name, by export name: objects, arrays, records and unions of objects. */
export function contractShapes(module: Record<string, unknown> = contract): Map<string, Schema> {
  const shapes = new Map<string, Schema>();
  for (const [name, value] of Object.entries(module)) {
    if (!isRecord(value)) continue;
    const members = value.anyOf;
    const named =
      IsKind(value, 'Object') ||
      IsKind(value, 'Array') ||
      IsKind(value, 'Record') ||
      (IsKind(value, 'Union') && Array.isArray(members) && members.some((member: unknown) => IsKind(member, 'Object')));
    if (named) shapes.set(name, value);
  }
  return shapes;
}

interface RouteSchema {
  body?: unknown;
  response?: unknown;
  consumes?: string[];
}

/**
 * Names the contract's shapes in route schemas, for the document only. A schema is known by
 * identity, or by its shape when it has named fields (TypeBox copies a schema it wraps, e.g. in
 * Type.Optional); a record (any keys) is known by identity only, as its shape says nothing.
 */
export function createSchemaNamer(shapes: Map<string, Schema> = contractShapes(), options: { multipartBody?: string } = {}) {
  const byIdentity = new Map<object, string>();
  const byShape = new Map<string, string>();
  const canonicalCache = new WeakMap<object, string>();
  const canonical = (schema: Schema) => {
    let key = canonicalCache.get(schema);
    if (key === undefined) {
      key = JSON.stringify(schema, sortedKeys);
      canonicalCache.set(schema, key);
    }
    return key;
  };
  for (const [name, schema] of shapes) {
    if (!byIdentity.has(schema)) byIdentity.set(schema, name);
    if (hasFields(schema) && !byShape.has(canonical(schema))) byShape.set(canonical(schema), name);
  }
  const nameOf = (schema: Schema) => byIdentity.get(schema) ?? (hasFields(schema) ? byShape.get(canonical(schema)) : undefined);
  const ref = (name: string) => ({ $ref: `${SCHEMAS_PATH}${name}` });

  /** A copy of a schema for the document, named shapes replaced by references ($id dropped: the name is the reference). */
  function refer(schema: unknown, self?: string): unknown {
    if (Array.isArray(schema)) return schema.map((member) => refer(member));
    if (!isRecord(schema)) return schema;
    const name = nameOf(schema);
    if (name !== undefined && name !== self) return ref(name);
    const copy: Schema = {};
    for (const [key, value] of Object.entries(schema)) {
      if (key === '$id') continue;
      if (SCHEMA_KEYWORDS.has(key)) copy[key] = refer(value);
      else if (SCHEMA_MAP_KEYWORDS.has(key) && isRecord(value))
        copy[key] = Object.fromEntries(Object.entries(value).map(([field, sub]) => [field, refer(sub)]));
      else copy[key] = value;
    }
    return copy;
  }

  /** A response as a route declares it: a schema, or {description, content: {type: {schema}}}. */
  function referResponse(response: unknown): unknown {
    if (!isRecord(response)) return response;
    const content = response.content;
    if (isRecord(content) && Object.values(content).some((media) => isRecord(media) && 'schema' in media)) {
      const media = Object.entries(content).map(([type, value]) => [type, isRecord(value) ? { ...value, schema: refer(value.schema) } : value]);
      return { ...response, content: Object.fromEntries(media) };
    }
    const referred = refer(response);
    // The response's description is read beside the reference (swagger keeps it for the response).
    if (isRecord(referred) && '$ref' in referred && typeof response.description === 'string') return { ...referred, description: response.description };
    return referred;
  }

  return {
    nameOf,
    refer,
    /** Every named shape, each referring to the others it nests (for the swagger options' components). */
    components(): Record<string, Schema> {
      const named = [...shapes].filter(([name, schema]) => byIdentity.get(schema) === name);
      return Object.fromEntries(named.map(([name, schema]) => [name, refer(schema, name) as Schema]));
    },
    /** @fastify/swagger's `transform`: the route's body and responses with named shapes referenced. */
    transform({ schema, url }: { schema: FastifySchema; url: string }): { schema: FastifySchema; url: string } {
      if (!schema) return { schema, url };
      const route = schema as RouteSchema;
      const documented: RouteSchema = { ...route };
      if (route.body !== undefined) documented.body = refer(route.body);
      // A multipart body is read by @fastify/multipart, not validated by a body schema; it is documented here.
      else if (options.multipartBody && route.consumes?.includes('multipart/form-data')) documented.body = ref(options.multipartBody);
      if (isRecord(route.response))
        documented.response = Object.fromEntries(Object.entries(route.response).map(([status, value]) => [status, referResponse(value)]));
      return { schema: documented as FastifySchema, url };
    },
  };
}

/** The component names a node refers to (deep). */
function referencedNames(node: unknown, found: Set<string>) {
  if (Array.isArray(node)) for (const item of node) referencedNames(item, found);
  else if (isRecord(node)) {
    if (typeof node.$ref === 'string' && node.$ref.startsWith(SCHEMAS_PATH)) found.add(node.$ref.slice(SCHEMAS_PATH.length));
    for (const value of Object.values(node)) referencedNames(value, found);
  }
}

/** For transformObject: keeps only the component schemas the operations use, directly or through each other. */
export function pruneComponentSchemas<T extends object>(document: T): T {
  const doc = document as { paths?: unknown; components?: { schemas?: Record<string, unknown> } };
  const schemas = doc.components?.schemas;
  if (!schemas) return document;
  const used = new Set<string>();
  referencedNames(doc.paths, used);
  const queue = [...used];
  while (queue.length > 0) {
    const nested = new Set<string>();
    referencedNames(schemas[queue.pop() as string], nested);
    for (const name of nested) {
      if (used.has(name)) continue;
      used.add(name);
      queue.push(name);
    }
  }
  doc.components = { ...doc.components, schemas: Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name))) };
  return document;
}
