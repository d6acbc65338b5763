// The OpenAPI document names every operation with a unique operationId.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../test-support/app.ts';
import { operationIdFor } from './operation-ids.ts';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
}, 180_000);
afterAll(() => ctx?.close());

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

describe('OpenAPI operationIds', () => {
  it('every operation has one, and no two are the same', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(response.statusCode).toBe(200);
    const document = response.json() as { paths: Record<string, Record<string, { operationId?: string }>> };
    const seen = new Map<string, string>();
    let count = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of METHODS) {
        const operation = item[method];
        if (!operation) continue;
        count++;
        const where = `${method.toUpperCase()} ${path}`;
        expect(operation.operationId, where).toMatch(/^[A-Za-z][A-Za-z0-9_]*$/);
        const id = operation.operationId as string;
        expect(seen.get(id), `${where} reuses ${id}`).toBeUndefined();
        seen.set(id, where);
      }
    }
    expect(count).toBeGreaterThan(50);
    // Made from method and path where the route names none.
    expect(seen.get('getKeys')).toMatch(/^GET \/api\/keys\/?$/);
    expect(seen.get('postKeys')).toMatch(/^POST \/api\/keys\/?$/);
  });

  it('are made from the method and the path', () => {
    expect(operationIdFor('GET', '/api/apps/{slug}/keys')).toBe('getAppsBySlugKeys');
    expect(operationIdFor('delete', '/api/keys/{id}')).toBe('deleteKeysById');
    expect(operationIdFor('post', '/v1/chat/completions')).toBe('postV1ChatCompletions');
    expect(operationIdFor('get', '/api/app/{slug}/files/upload')).toBe('getAppBySlugFilesUpload');
  });
});
