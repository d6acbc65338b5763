// The OpenAPI document names the response headers: X-Request-Id on every answer, and on the paid
// call operations RateLimit-*, Retry-After (429) and Idempotent-Replayed — and the calls send them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../test-support/app.ts';
import { CALL_OPERATIONS } from './openapi-headers.ts';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
}, 180_000);
afterAll(() => ctx?.close());

type Responses = Record<string, { headers?: Record<string, { $ref?: string }> }>;
type Document = { paths: Record<string, Record<string, { responses?: Responses }>>; components: { headers?: Record<string, unknown> } };

const headerNames = (response: { headers?: Record<string, unknown> } | undefined) => Object.keys(response?.headers ?? {});

describe('OpenAPI response headers', () => {
  it('every response documents X-Request-Id; the call operations their rate-limit, Retry-After and Idempotent-Replayed headers', async () => {
    const document = (await ctx.app.inject({ method: 'GET', url: '/api/docs/json' })).json() as Document;
    expect(Object.keys(document.components.headers ?? {})).toEqual(
      expect.arrayContaining(['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'Idempotent-Replayed']),
    );
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          expect(headerNames(response), `${method} ${path} ${status}`).toContain('X-Request-Id');
          expect(response.headers?.['X-Request-Id']?.$ref).toBe('#/components/headers/X-Request-Id');
        }
      }
    }
    let calls = 0;
    for (const operation of CALL_OPERATIONS) {
      const [method, path] = operation.split(' ') as [string, string];
      const documented = document.paths[path]?.[method] ?? document.paths[`${path}/`]?.[method];
      expect(documented, operation).toBeDefined();
      calls++;
      const responses = documented?.responses ?? {};
      expect(headerNames(responses['200']), operation).toEqual(
        expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'X-Price-Cents', 'Idempotent-Replayed']),
      );
      expect(headerNames(responses['429']), operation).toEqual(expect.arrayContaining(['Retry-After', 'RateLimit-Limit']));
    }
    expect(calls).toBe(5);
    // The management API's signed-in operations say their per-user limit (issue 26); public reads do not.
    expect(headerNames(document.paths['/api/keys']?.get?.responses?.['200'] ?? document.paths['/api/keys/']?.get?.responses?.['200'])).toEqual([
      'X-Request-Id',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
    ]);
    expect(headerNames(document.paths['/api/catalog']?.get?.responses?.['200'] ?? document.paths['/api/catalog/']?.get?.responses?.['200'])).toEqual([
      'X-Request-Id',
    ]);
  });
});
