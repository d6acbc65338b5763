// Eight server processes through one PgBouncer in transaction mode (issue 59.4, decision 0106):
// PgBouncer hands each transaction whichever of its few server connections is free, so a statement
// prepared by name on one is unknown on the next. With DATABASE_POOL_MODE=transaction the processes
// prepare nothing by name and LISTEN on DATABASE_LISTEN_URL (PostgreSQL itself); paid calls stay
// exact and PgBouncer logs no prepared-statement error. PostgreSQL only (PGlite has no pooler).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../test-support/database.ts';
import type { FakeProviderServer } from '../test-support/fakes/http-fake.ts';
import { startOpenAIFake } from '../test-support/fakes/openai-fake.ts';
import { startTestIssuer, type TestIssuer } from '../test-support/oidc-issuer.ts';
import { type PgBouncer, pgbouncerMissing, startPgBouncer } from '../test-support/pgbouncer.ts';
import { type ServerProcess, sendJson as send, startServerProcess, stopServerProcess } from '../test-support/server-process.ts';

const PROCESSES = 8;
const missing = pgbouncerMissing();
if (missing) console.info(`pgbouncer.test.ts skipped: ${missing}`);

describe.skipIf(missing !== null)('eight server processes through PgBouncer in transaction mode', () => {
  let database: TestDatabase;
  let issuer: TestIssuer;
  let upstream: FakeProviderServer;
  let bouncer: PgBouncer;
  const processes: ServerProcess[] = [];

  beforeAll(async () => {
    [database, issuer, upstream] = await Promise.all([createTestDatabase(), startTestIssuer(), startOpenAIFake()]);
    // Four server connections for eight processes of up to 30 clients each: transactions share them.
    bouncer = await startPgBouncer({ poolMode: 'transaction', poolSize: 4 });
    const name = new URL(database.url!).pathname.slice(1);
    const started = await Promise.all(
      Array.from({ length: PROCESSES }, () =>
        startServerProcess({
          DATABASE_URL: bouncer.url(name),
          DATABASE_POOL_MODE: 'transaction',
          DATABASE_LISTEN_URL: database.url!,
          SECRET_KEY: 'b'.repeat(64),
          OIDC_ISSUER: issuer.issuer,
          OIDC_CLIENT_ID: 'test-client',
          OIDC_AUDIENCE: issuer.audience,
          OPENAI_BASE_URL: upstream.baseUrl,
          OPENAI_API_KEY: 'sk-x',
          RATE_LIMIT_PER_MINUTE: '1000000',
        }),
      ),
    );
    processes.push(...started);
  }, 420_000);

  afterAll(async () => {
    await Promise.all(processes.map(stopServerProcess));
    await bouncer?.close();
    await Promise.all([database?.cleanup(), issuer?.close(), upstream?.close()]);
  });

  it('charges paid calls exactly, with no prepared-statement errors', async () => {
    const bases = processes.map((server) => server.base);
    const owner = await issuer.sign({ sub: 'bouncer-owner', email: 'owner@example.com' });
    const consumer = await issuer.sign({ sub: 'bouncer-consumer', email: 'consumer@example.com' });
    const app = await send(bases[0]!, 'POST', '/api/app/', owner, { name: 'Pooled', type: 'prompt', visibility: 'public', price_cents: 25 });
    expect(app.status).toBe(201);
    expect((await send(bases[1]!, 'PATCH', `/api/app/${app.body.slug}/update_status/`, owner, { status: 'live' })).status).toBe(200);
    const key = (await send(bases[2]!, 'POST', '/api/keys/', consumer, { name: 'k' })).body.key as string;

    // 500 cents of sign-up credits cover exactly 20 calls at 25 cents; 120 are sent over the eight processes.
    const results = await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        send(bases[i % PROCESSES]!, 'POST', `/api/app/${app.body.slug}/completion-messages`, key, { inputs: { query: `call ${i}` } }),
      ),
    );
    const statuses = results.map((result) => result.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(20);
    expect(statuses.filter((status) => status === 402)).toHaveLength(100);
    for (const base of bases) expect((await send(base, 'GET', '/api/billing/balance/', consumer)).body.credits_cents).toBe(0);
    const { rows } = await database.db.query<{ total: number; calls: number }>(
      `SELECT (SELECT coalesce(sum(amount_cents), 0)::bigint FROM ledger_entries) AS total,
              (SELECT count(*)::int FROM invocations WHERE price_cents = 25 AND status = 'success') AS calls`,
    );
    expect(rows[0]).toEqual({ total: 0, calls: 20 });
    expect(bouncer.log()).not.toMatch(/prepared statement/i);
  }, 120_000);
});
