// The gateway reads a workflow app's configuration from a per-process cache, like the prompt apps'
// call targets: no configuration query per paid call, changes through this process seen at once
// (save, rollback, PATCH /api/app/{slug}/), changes through another process within the TTL.
import { afterAll, describe, expect, it } from 'vitest';
import { selectAppBySlug } from '../apps/queries.ts';
import { INTERNAL_HOP } from '../http/call-chain.ts';
import { createWorkflowProviderRegistry } from '../providers/workflows/registry.ts';
import { createDifyTestContext } from '../test-support/dify-app.ts';
import { watchedDatabase } from '../test-support/watched-database.ts';
import { createWorkflowsService } from './service.ts';

const KEY = 'app-cacheKey0000CACH';
const ctx = await createDifyTestContext({ RATE_LIMIT_PER_MINUTE: '100000' }, { apiKey: KEY, app: { mode: 'chat' } });
const { dify, api } = ctx;
const owner = await ctx.tokenFor('cache-owner');
afterAll(() => ctx.close());

/** A workflows service as another process would have it, counting its configuration reads. */
function processWithCountedReads(ttlMs: number) {
  const db = ctx.database.db;
  let reads = 0;
  let clock = 0;
  const counted = watchedDatabase(db, {
    onQuery: (sql) => {
      if (/FROM apps a LEFT JOIN workflow_configs/.test(sql)) reads++;
    },
  });
  const service = createWorkflowsService({
    db: counted,
    config: ctx.config,
    providers: createWorkflowProviderRegistry({ allowPrivateUrls: true }),
    callConfigTtlMs: ttlMs,
    now: () => clock,
  });
  return { service, reads: () => reads, advance: (ms: number) => (clock += ms) };
}

async function workflowApp(name: string) {
  const created = await api('POST', '/api/app/', owner, {
    name,
    type: 'workflow',
    visibility: 'public',
    price_cents: 10,
    provider_config: { app_id: 'cache-app', api_key: KEY, base_url: dify.baseUrl },
  });
  expect(created.statusCode).toBe(201);
  return created.json() as { id: string; slug: string };
}

describe('the workflow call configuration cache', () => {
  it('reads the configuration once per TTL; a change made in this process is seen at once, one made in another within the TTL', async () => {
    const { id, slug } = await workflowApp('Cached flow');
    const here = processWithCountedReads(1000);
    const first = await here.service.readCallConfig(id);
    expect(first.timeoutMs).toBe(300_000);
    for (let i = 0; i < 5; i++) await here.service.readCallConfig(id);
    expect(here.reads()).toBe(1);

    // Saved through this process (the service's own update): the next call sees it.
    const row = (await selectAppBySlug(ctx.database.db, slug))!;
    await here.service.updateConfig(row, { timeout_seconds: 30 }, INTERNAL_HOP);
    expect((await here.service.readCallConfig(id)).timeoutMs).toBe(30_000);
    await here.service.createVersion(row, { rollback_to: 1 });
    expect((await here.service.readCallConfig(id)).timeoutMs).toBe(300_000);

    // Saved through another process (the HTTP API of the test app): seen after the TTL only.
    const short = processWithCountedReads(1000);
    expect((await short.service.readCallConfig(id)).timeoutMs).toBe(300_000);
    expect((await api('PATCH', `/api/app/${slug}/workflow/`, owner, { timeout_seconds: 12 })).statusCode).toBe(200);
    short.advance(999);
    expect((await short.service.readCallConfig(id)).timeoutMs).toBe(300_000);
    short.advance(1);
    expect((await short.service.readCallConfig(id)).timeoutMs).toBe(12_000);
    expect(short.reads()).toBe(2);
    short.service.forgetCallConfig(id);
    await short.service.readCallConfig(id);
    expect(short.reads()).toBe(3);
  });

  it('paid calls through the server see a new key, timeout or rollback at once', async () => {
    const { slug } = await workflowApp('Live cached flow');
    await api('PATCH', `/api/app/${slug}/update_status/`, owner, { status: 'live' });
    const consumer = await ctx.tokenFor('cache-consumer');
    const call = () => api('POST', `/api/app/${slug}/chat-messages`, consumer, { inputs: {}, query: 'hi', response_mode: 'blocking' });
    expect((await call()).statusCode).toBe(200);
    // A key changed through PATCH /api/app/{slug}/ reaches the very next call.
    expect((await api('PATCH', `/api/app/${slug}/`, owner, { provider_config: { api_key: 'app-revokedKey' } })).statusCode).toBe(200);
    const refused = await call();
    expect(refused.statusCode).toBe(502);
    expect(refused.json().code).toBe('provider_auth_failed');
    // A rollback to the working key reaches the very next call.
    expect((await api('POST', `/api/workflows/${slug}/versions/`, owner, { rollback_to: 1 })).statusCode).toBe(201);
    expect((await call()).statusCode).toBe(200);
    // And so does a new timeout.
    expect((await api('PATCH', `/api/app/${slug}/workflow/`, owner, { timeout_seconds: 1 })).statusCode).toBe(200);
    dify.setBehaviour({ delayMs: 3000 });
    try {
      expect((await call()).statusCode).toBe(504);
    } finally {
      dify.resetBehaviour();
    }
  });
});
