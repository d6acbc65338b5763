// The OpenAPI document stays lint-clean and useful: Redocly's recommended rules find nothing (but
// the spec's trailing slashes, off in redocly.yaml); the contract's shapes are named components;
// uploads document their multipart body; every operation says how it is authenticated — and the
// public ones really answer without credentials; every operation has a 4xx answer; the examples
// are valid for their contract schemas.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CatalogField } from '@tollbooth/contract';
import * as contract from '@tollbooth/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAppOpenApi } from '../catalog/openapi.ts';
import { ERROR_STATUS } from '../platform/errors.ts';
import { createAjv } from '../platform/validation.ts';
import { createTestContext, type TestContext } from '../test-support/app.ts';
import { SCHEMAS_PATH } from './openapi-components.ts';
import { SCHEMA_EXAMPLES } from './openapi-examples.ts';

type Media = { schema?: Record<string, unknown>; example?: unknown };
type Operation = {
  operationId: string;
  parameters?: { in: string; required?: boolean; schema?: { default?: unknown } }[];
  security?: Record<string, string[]>[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
};
type Document = {
  info: { license?: { name: string; url?: string } };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Record<string, unknown>>; securitySchemes: Record<string, unknown> };
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const REPOSITORY = path.resolve(import.meta.dirname, '../../..');

let ctx: TestContext;
let document: Document;

const operations = () =>
  Object.entries(document.paths).flatMap(([route, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ route, method, operation: item[method] as Operation })),
  );
const find = (method: string, route: string) => document.paths[route]?.[method] ?? document.paths[`${route}/`]?.[method];
const canonical = (value: unknown) =>
  JSON.stringify(value, (_key, inner) =>
    inner && typeof inner === 'object' && !Array.isArray(inner) ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : 1))) : inner,
  );

/** Redocly's findings on a document, with redocly.yaml, as "rule: message at pointer". */
function redoclyFindings(openapi: object): string[] {
  const directory = mkdtempSync(path.join(tmpdir(), 'tollbooth-openapi-'));
  try {
    const file = path.join(directory, 'openapi.json');
    writeFileSync(file, JSON.stringify(openapi));
    const lint = spawnSync(
      process.execPath,
      [path.join(REPOSITORY, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', file, '--config', path.join(REPOSITORY, 'redocly.yaml'), '--format=json'],
      { encoding: 'utf8', timeout: 60_000, env: { ...process.env, REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' } },
    );
    const report = JSON.parse(lint.stdout) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
    };
    const findings = report.problems.map((problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`);
    if (findings.length === 0 && (lint.status !== 0 || report.totals.errors + report.totals.warnings > 0))
      findings.push(`redocly exited ${lint.status}: ${lint.stderr}`);
    return findings;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

beforeAll(async () => {
  ctx = await createTestContext();
  const response = await ctx.app.inject({ method: 'GET', url: '/api/docs/json' });
  expect(response.statusCode).toBe(200);
  document = response.json() as Document;
}, 180_000);
afterAll(() => ctx?.close());

describe('OpenAPI document', () => {
  it("has no finding under Redocly's recommended rules but the spec's trailing slashes (redocly.yaml)", () => {
    expect(redoclyFindings(document)).toEqual([]);
  }, 90_000);

  it("an app's own document (catalog/openapi.ts) has none either", () => {
    const fields: CatalogField[] = [{ name: 'topic', label: 'Topic', control: 'text', required: true, description: 'What the haiku is about' }];
    for (const mode of ['completion', 'chat'] as const) {
      const app = { slug: 'haiku-writer', mode, name: 'Haiku Writer', description: 'Writes a haiku', priceCents: 5, textInput: 'topic', fields };
      expect(redoclyFindings(buildAppOpenApi('http://tollbooth.test', 'Tollbooth', app)), mode).toEqual([]);
    }
  }, 90_000);

  it("names the contract's shapes as components and refers to them, never repeating one inline", () => {
    const { schemas } = document.components;
    for (const name of ['CallRequest', 'CallAnswer', 'CallUsage', 'ApiKey', 'ApiKeyCreated', 'Application', 'ErrorResponse', 'LedgerPage', 'CatalogPage']) {
      expect(schemas[name], name).toBeDefined();
    }
    // Each component is the contract's export of that name (bar $id), nested shapes by reference.
    expect(schemas.ApiKeyList).toMatchObject({ type: 'array', items: { $ref: `${SCHEMAS_PATH}ApiKey` } });
    expect(schemas.CallAnswer).toMatchObject({ properties: { metadata: { properties: { usage: { $ref: `${SCHEMAS_PATH}CallUsage` } } } } });

    const media = (operation: Operation | undefined, status?: string) =>
      (status ? operation?.responses[status]?.content : operation?.requestBody?.content)?.['application/json']?.schema;
    const completion = find('post', '/api/app/{slug}/completion-messages');
    expect(media(completion)).toEqual({ $ref: `${SCHEMAS_PATH}CallRequest` });
    expect(media(completion, '200')).toEqual({ $ref: `${SCHEMAS_PATH}CallAnswer` });
    expect(media(completion, '402')).toEqual({ $ref: `${SCHEMAS_PATH}ErrorResponse` });
    expect(media(find('post', '/api/keys'))).toEqual({ $ref: `${SCHEMAS_PATH}ApiKeyCreate` });
    expect(media(find('post', '/api/keys'), '201')).toEqual({ $ref: `${SCHEMAS_PATH}ApiKeyCreated` });
    expect(media(find('get', '/api/keys'), '200')).toEqual({ $ref: `${SCHEMAS_PATH}ApiKeyList` });
    expect(media(find('get', '/api/app/{slug}'), '200')).toEqual({ $ref: `${SCHEMAS_PATH}Application` });
    expect(media(find('post', '/v1/chat/completions'))).toEqual({ $ref: `${SCHEMAS_PATH}ChatCompletionRequest` });

    // No operation spells out a component's shape again: every use is a reference.
    const shapes = new Map(Object.entries(schemas).map(([name, schema]) => [canonical(schema), name]));
    const repeats: string[] = [];
    const walk = (node: unknown, where: string) => {
      if (Array.isArray(node)) {
        for (const [index, item] of node.entries()) walk(item, `${where}/${index}`);
      } else if (node && typeof node === 'object') {
        const name = shapes.get(canonical(node));
        if (name) repeats.push(`${where} repeats ${name}`);
        for (const [key, value] of Object.entries(node)) walk(value, `${where}/${key}`);
      }
    };
    walk(document.paths, '#/paths');
    expect(repeats).toEqual([]);
    // Only components something refers to.
    const text = JSON.stringify(document);
    for (const name of Object.keys(schemas)) expect(text, name).toContain(`"${SCHEMAS_PATH}${name}"`);
  });

  it('documents the multipart body of both upload operations: a binary file and user', () => {
    const uploads = operations().filter(({ operation }) => operation.requestBody?.content['multipart/form-data']);
    expect(uploads.map(({ route }) => route.replace(/\/$/, '')).sort()).toEqual(['/api/app/{slug}/file-upload', '/api/app/{slug}/files/upload']);
    for (const { operation } of uploads) {
      expect(operation.requestBody?.content['multipart/form-data']?.schema).toEqual({ $ref: `${SCHEMAS_PATH}FileUpload` });
      expect(Object.keys(operation.requestBody?.content ?? {})).toEqual(['multipart/form-data']);
    }
    const form = document.components.schemas.FileUpload as { properties: Record<string, Record<string, unknown>>; required: string[] };
    expect(form.properties.file).toMatchObject({ type: 'string', format: 'binary' });
    expect(form.properties.user).toMatchObject({ type: 'string' });
    expect(form.required).toEqual(['file']);
  });

  it('says how every operation is authenticated, with a 4xx answer on each', () => {
    const schemes = Object.keys(document.components.securitySchemes);
    for (const { route, method, operation } of operations()) {
      const where = `${method.toUpperCase()} ${route}`;
      expect(Array.isArray(operation.security), `${where} declares security`).toBe(true);
      for (const requirement of operation.security ?? []) for (const scheme of Object.keys(requirement)) expect(schemes, where).toContain(scheme);
      expect(
        Object.keys(operation.responses).some((status) => status.startsWith('4')),
        `${where} has a 4xx response`,
      ).toBe(true);
    }
    expect(document.info.license?.name).toBeTruthy();
  });

  it('public operations answer without credentials; the others ask for them (401)', async () => {
    const owner = await ctx.tokenFor('openapi-owner');
    const created = await ctx.api('POST', '/api/app/', owner, { name: 'Docs check', type: 'prompt', visibility: 'public' });
    expect(created.statusCode, created.body).toBe(201);
    const slug = created.json().slug as string;
    const live = await ctx.api('PATCH', `/api/app/${slug}/update_status/`, owner, { status: 'live' });
    expect(live.statusCode).toBe(200);

    const anonymousAllowed = (operation: Operation) =>
      (operation.security ?? []).length === 0 || operation.security?.some((requirement) => Object.keys(requirement).length === 0);
    let publicChecked = 0;
    let protectedChecked = 0;
    for (const { route, method, operation } of operations()) {
      // Reads only, without required query parameters: a body or a missing parameter is refused (400) before authentication is asked for.
      if (
        method !== 'get' ||
        operation.parameters?.some((parameter) => parameter.in === 'query' && parameter.required && parameter.schema?.default === undefined)
      )
        continue;
      const url = route.replace('{slug}', slug).replace(/\{[^}]+\}/g, '6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b');
      const response = await ctx.app.inject({ method: 'GET', url });
      if (anonymousAllowed(operation)) {
        expect(response.statusCode, `GET ${route} is documented public: ${response.body}`).not.toBe(401);
        publicChecked++;
      } else {
        expect(response.statusCode, `GET ${route} is documented as needing credentials`).toBe(401);
        protectedChecked++;
      }
    }
    expect(publicChecked).toBeGreaterThanOrEqual(9);
    expect(protectedChecked).toBeGreaterThan(20);
  });

  it('has examples valid for their contract schemas, on the main calls, keys and apps', () => {
    const ajv = createAjv({ coerceTypes: false });
    const schemas = contract as unknown as Record<string, object>;
    for (const [name, example] of Object.entries(SCHEMA_EXAMPLES)) {
      const schema = schemas[name];
      expect(schema, name).toBeDefined();
      const validate = ajv.compile(schema as object);
      expect(validate(structuredClone(example)), `${name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      expect(document.components.schemas[name]?.examples, name).toEqual([example]);
    }
    const validateError = ajv.compile(contract.ErrorResponse);
    const example = (operation: Operation | undefined, status?: string) =>
      (status ? operation?.responses[status]?.content : operation?.requestBody?.content)?.['application/json']?.example;
    for (const [method, route] of [
      ['post', '/api/app/{slug}/completion-messages'],
      ['post', '/api/app/{slug}/chat-messages'],
      ['post', '/api/app/{slug}/workflows/run'],
      ['post', '/v1/chat/completions'],
      ['post', '/v1/invoke/{slug}'],
      ['post', '/api/keys'],
      ['post', '/api/app'],
    ] as const) {
      const operation = find(method, route);
      expect(example(operation), `${route} request example`).toBeDefined();
      const success = Object.keys(operation?.responses ?? {}).find((status) => status.startsWith('2')) as string;
      expect(example(operation, success), `${route} ${success} example`).toBeDefined();
      for (const status of Object.keys(operation?.responses ?? {}).filter((code) => /^[45]/.test(code))) {
        const error = example(operation, status) as { code: keyof typeof ERROR_STATUS; status: number } | undefined;
        if (!error) continue;
        expect(validateError(error), `${route} ${status}`).toBe(true);
        expect(ERROR_STATUS[error.code], `${route} ${status}`).toBe(Number(status));
      }
    }
    for (const route of ['/api/keys', '/api/app'])
      expect(example(find('get', route), '200'), route).toEqual([SCHEMA_EXAMPLES[route === '/api/keys' ? 'ApiKey' : 'Application']]);
  });
});
