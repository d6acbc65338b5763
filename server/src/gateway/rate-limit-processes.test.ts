// Issue 24: without Redis, the call rate limit was per process, so N processes on one database
// allowed N times the limit. Two real server processes against one PostgreSQL now enforce one
// limit (the counters are in rate_limit_counters). PGlite is one process's embedded database, so
// this runs with DATABASE_URL; rate-limit.test.ts covers the shared counters on both databases.
import { beforeAll, describe, expect, it } from 'vitest';
import { useProcessCluster } from '../test-support/process-cluster.ts';
import { sendJson as send } from '../test-support/server-process.ts';

const LIMIT = 6;

describe.runIf(process.env.DATABASE_URL)('the call rate limit across two server processes without Redis', () => {
  const cluster = useProcessCluster();
  beforeAll(async () => {
    for (let i = 0; i < 2; i++) await cluster.start({ RATE_LIMIT_PER_MINUTE: String(LIMIT) });
  }, 90_000);

  it(`allows ${LIMIT} calls a minute per key in all, not ${LIMIT} per process`, async () => {
    const [a, b] = cluster.servers.map((server) => server.base) as [string, string];
    const owner = await cluster.issuer.sign({ sub: 'rl-owner', email: 'rl-owner@example.com' });
    const app = await send(a, 'POST', '/api/app/', owner, { name: 'Limited', type: 'prompt', visibility: 'public', price_cents: 1 });
    expect(app.status).toBe(201);
    await send(b, 'PATCH', `/api/app/${app.body.slug}/update_status/`, owner, { status: 'live' });
    const consumer = await cluster.issuer.sign({ sub: 'rl-consumer', email: 'rl-consumer@example.com' });
    const key = (await send(b, 'POST', '/api/keys/', consumer, { name: 'k' })).body.key as string;
    const results = [];
    for (let i = 0; i < 2 * LIMIT; i++)
      results.push(await send(i % 2 ? a : b, 'POST', `/api/app/${app.body.slug}/completion-messages`, key, { inputs: { query: `call ${i}` } }));
    // A minute boundary between calls would start a new window: at most one more then.
    const allowed = results.filter((result) => result.status === 200).length;
    expect(allowed).toBeGreaterThanOrEqual(LIMIT);
    expect(allowed).toBeLessThanOrEqual(LIMIT + 1);
    expect(results.filter((result) => result.status === 429).length).toBe(2 * LIMIT - allowed);
  }, 60_000);
});
