// Two real server processes against one PostgreSQL: charging stays exact and idempotency holds
// across processes. PGlite is one process's embedded database, so this runs with DATABASE_URL
// (CI runs the suite both ways).
import { beforeAll, describe, expect, it } from 'vitest';
import { useProcessCluster } from '../test-support/process-cluster.ts';
import { sendJson as send } from '../test-support/server-process.ts';

describe.runIf(process.env.DATABASE_URL)('two server processes against one PostgreSQL', () => {
  const cluster = useProcessCluster();
  const bases: string[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 2; i++) bases.push((await cluster.start({ RATE_LIMIT_PER_MINUTE: '1000000' })).base);
  }, 60_000);

  it('keeps charging exact and idempotency keys single-use across processes', async () => {
    const [a, b] = bases as [string, string];
    const owner = await cluster.issuer.sign({ sub: 'proc-owner', email: 'owner@example.com' });
    const consumer = await cluster.issuer.sign({ sub: 'proc-consumer', email: 'consumer@example.com' });
    const app = await send(a, 'POST', '/api/app/', owner, { name: 'Shared', type: 'prompt', visibility: 'public', price_cents: 50 });
    expect(app.status).toBe(201);
    await send(b, 'PATCH', `/api/app/${app.body.slug}/update_status/`, owner, { status: 'live' });
    const key = (await send(b, 'POST', '/api/keys/', consumer, { name: 'k' })).body.key as string;
    cluster.upstream.setBehaviour({ delayMs: 10 });

    // 500 cents of sign-up credits cover exactly 10 calls at 50 cents; fire 100 across both processes.
    const calls = Array.from({ length: 100 }, (_, i) =>
      send(i % 2 ? a : b, 'POST', `/api/app/${app.body.slug}/completion-messages`, key, { inputs: { query: `call ${i}` } }),
    );
    const results = await Promise.all(calls);
    expect(results.filter((result) => result.status === 200)).toHaveLength(10);
    expect(results.filter((result) => result.status === 402)).toHaveLength(90);
    const balance = (await send(a, 'GET', '/api/billing/balance/', consumer)).body;
    expect(balance.credits_cents).toBe(0);
    const earnings = (await send(b, 'GET', '/api/billing/balance/', owner)).body;
    // The creator earns the 500 cents less the model cost the answers posted (decision 0025).
    const modelCosts = await cluster.database.db.query<{ balance: number }>(
      "SELECT balance_cents::int AS balance FROM ledger_accounts WHERE kind = 'model_costs'",
    );
    expect(modelCosts.rows[0]!.balance).toBeGreaterThan(0);
    expect(earnings.earnings_cents).toBe(500 - modelCosts.rows[0]!.balance);
    const { rows } = await cluster.database.db.query<{ total: number }>('SELECT coalesce(sum(amount_cents), 0)::bigint AS total FROM ledger_entries');
    expect(rows[0]!.total).toBe(0);

    // The owner (free calls) sends one Idempotency-Key to both processes at once, several times.
    const before = cluster.upstream.requests.length;
    const replays = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        send(
          i % 2 ? a : b,
          'POST',
          `/api/app/${app.body.slug}/completion-messages`,
          owner,
          { inputs: { query: 'once' } },
          { 'idempotency-key': 'cross-process' },
        ),
      ),
    );
    for (const replay of replays) expect(replay.status).toBe(200);
    expect(new Set(replays.map((replay) => replay.body.id)).size).toBe(1);
    expect(cluster.upstream.requests.length - before).toBe(1);
  });

  it('a key revoked in one process fails in the other within 100 ms, though both keep keys in memory', async () => {
    const [a, b] = bases as [string, string];
    const owner = await cluster.issuer.sign({ sub: 'revoke-owner', email: 'revoke-owner@example.com' });
    const caller = await cluster.issuer.sign({ sub: 'revoke-caller', email: 'revoke-caller@example.com' });
    const app = await send(a, 'POST', '/api/app/', owner, { name: 'Revocation', type: 'prompt', visibility: 'public', price_cents: 1 });
    await send(a, 'PATCH', `/api/app/${app.body.slug}/update_status/`, owner, { status: 'live' });
    const created = (await send(b, 'POST', '/api/keys/', caller, { name: 'soon revoked' })).body as { id: string; key: string };
    // GET /parameters authenticates the key like a paid call and calls no model: a cheap probe.
    const probe = () => send(a, 'GET', `/api/app/${app.body.slug}/parameters`, created.key);
    for (let i = 0; i < 3; i++) expect((await probe()).status).toBe(200);
    expect((await send(a, 'POST', `/api/app/${app.body.slug}/completion-messages`, created.key, { inputs: { query: 'hi' } })).status).toBe(200);

    expect((await send(b, 'DELETE', `/api/keys/${created.id}/`, caller)).status).toBe(204);
    const revokedAt = performance.now();
    // The first probe sent at least 100 ms after the revocation was answered must be refused,
    // and so must every one after it (probes sent sooner may still pass).
    let firstRefusedAfter = Number.POSITIVE_INFINITY;
    for (;;) {
      const sentAfter = performance.now() - revokedAt;
      const { status } = await probe();
      if (status === 401) {
        firstRefusedAfter = Math.min(firstRefusedAfter, sentAfter);
        if (sentAfter >= 100) break;
      } else {
        expect(status).toBe(200);
        expect(sentAfter, 'a probe sent 100 ms after revocation was still accepted').toBeLessThan(100);
      }
      if (sentAfter > 10_000) break;
    }
    expect(firstRefusedAfter).toBeLessThan(100);
    const paid = await send(a, 'POST', `/api/app/${app.body.slug}/completion-messages`, created.key, { inputs: { query: 'hi' } });
    expect(paid.status).toBe(401);
  });
});
