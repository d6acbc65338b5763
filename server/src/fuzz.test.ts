// Fuzzes every route of the API with hostile input (NUL and lone surrogates in every field, deep
// JSON, huge and negative numbers, wrong types, broken JSON and multipart, odd path parameters
// and query strings) and counts server errors: there must be none. The routes come from the
// OpenAPI document, so a new route is fuzzed without editing this file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from './test-support/app.ts';

let ctx: TestContext;
let token: string;
let slug: string;

beforeAll(async () => {
  // The webhook secret is set so the Stripe webhook route meets hostile bodies with its signature
  // check, as in production, instead of its deliberate 503 "not configured".
  ctx = await createTestContext({ RATE_LIMIT_PER_MINUTE: '1000000', MANAGEMENT_RATE_LIMIT_PER_MINUTE: '1000000', STRIPE_WEBHOOK_SECRET: 'whsec_fuzz' });
  token = await ctx.tokenFor('fuzzer');
  const created = await ctx.api('POST', '/api/app/', token, { name: 'Fuzz target', type: 'prompt', visibility: 'public' });
  slug = created.json().slug;
});
afterAll(async () => {
  await ctx?.close();
});

interface Operation {
  method: string;
  path: string;
  body: { properties?: Record<string, unknown> } | null;
  query: string[];
}

const NUL = 'a\u0000b';
const LONE = 'x\uD800y';
const deepText = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

const hostileValues: unknown[] = [NUL, LONE, '\uDC00', 1e308, -1, 1e20, 1.5, true, null, [], {}, [NUL], { [NUL]: 1 }, 'x'.repeat(5000)];

function bodiesFor(operation: Operation): { payload: string; contentType: string }[] {
  const json = (value: unknown) => ({ payload: JSON.stringify(value), contentType: 'application/json' });
  const bodies = [
    json({}),
    json(null),
    json([]),
    json('text'),
    json(12),
    json({ [NUL]: NUL }),
    json({ name: LONE, inputs: { q: NUL }, query: NUL, user: LONE }),
    { payload: deepText(70), contentType: 'application/json' },
    { payload: deepText(20_000), contentType: 'application/json' },
    { payload: deepArray(20_000), contentType: 'application/json' },
    { payload: '{"a": 1', contentType: 'application/json' },
    { payload: '{"a": "\\ud800"}', contentType: 'application/json' },
    { payload: '{"a": "\\u0000"}', contentType: 'application/json' },
    { payload: '--x\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nabc', contentType: 'multipart/form-data; boundary=x' },
    { payload: 'abc', contentType: 'multipart/form-data' },
    { payload: 'a=1', contentType: 'application/x-www-form-urlencoded' },
  ];
  for (const property of Object.keys(operation.body?.properties ?? {})) {
    for (const value of hostileValues) bodies.push(json({ [property]: value }));
  }
  return bodies;
}

const fillPath = (path: string, value: string) => path.replace(/\{slug\}/g, value).replace(/\{[^}]+\}/g, value);

describe('fuzzing every route', () => {
  it('answers no 5xx to hostile input', async () => {
    const document = (await ctx.app.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      paths: Record<
        string,
        Record<
          string,
          { requestBody?: { content?: Record<string, { schema?: Operation['body'] & { $ref?: string } }> }; parameters?: { in: string; name: string }[] }
        >
      >;
      components: { schemas: Record<string, Operation['body']> };
    };
    // Bodies of the contract's shapes refer to a named component schema.
    const resolve = (schema: (Operation['body'] & { $ref?: string }) | undefined) =>
      (schema?.$ref ? document.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema) ?? null;
    const operations: Operation[] = [];
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, spec] of Object.entries(methods)) {
        operations.push({
          method: method.toUpperCase(),
          path,
          body: resolve(spec.requestBody?.content?.['application/json']?.schema),
          query: (spec.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name),
        });
      }
    }
    const writes = operations.filter((operation) => operation.method !== 'GET');
    expect(writes.length).toBeGreaterThan(15);

    const failures: string[] = [];
    let sent = 0;
    const send = async (method: string, url: string, payload?: string, contentType?: string, headers: Record<string, string> = {}) => {
      sent++;
      const response = await ctx.app.inject({
        method: method as 'POST',
        url,
        headers: { authorization: `Bearer ${token}`, ...(contentType ? { 'content-type': contentType } : {}), ...headers },
        ...(payload !== undefined ? { payload } : {}),
      });
      // Payouts need Stripe, which this server has not: their deliberate 503 "not configured" is no server error.
      const notConfigured = response.statusCode === 503 && url.startsWith('/api/billing/payouts/') && response.json().code === 'service_unavailable';
      if (response.statusCode >= 500 && !notConfigured)
        failures.push(`${method} ${url} ${contentType ?? ''} ${payload?.slice(0, 80) ?? ''} → ${response.statusCode} ${response.body.slice(0, 200)}`);
    };

    for (const operation of writes) {
      const url = fillPath(operation.path, slug);
      for (const body of bodiesFor(operation)) await send(operation.method, url, body.payload, body.contentType);
      await send(operation.method, url, deepText(60), 'application/json', { 'idempotency-key': 'fuzz' });
      for (const parameter of ['%00', '%ED%A0%80', '%F0%9F', 'x'.repeat(300), '1e20', '..%2F..', '00000000-0000-0000-0000-000000000000']) {
        if (operation.path.includes('{')) await send(operation.method, fillPath(operation.path, parameter), '{}', 'application/json');
      }
    }
    for (const operation of operations.filter((candidate) => candidate.method === 'GET')) {
      const url = fillPath(operation.path, slug);
      for (const value of ['1e20', '-1', '%00', '%ED%A0%80', 'x'.repeat(500), '1.5', 'NaN']) {
        const query = (operation.query.length > 0 ? operation.query : ['offset']).map((name) => `${name}=${value}`).join('&');
        await send('GET', `${url}?${query}`);
      }
    }
    console.log(
      `fuzzed ${writes.length} write routes and ${operations.length - writes.length} read routes with ${sent} requests: ${failures.length} answered 5xx`,
    );
    expect(failures).toEqual([]);
  }, 120_000);
});
