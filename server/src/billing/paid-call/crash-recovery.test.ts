// kill -9 a server process in the middle of a paid call with an Idempotency-Key, next to a live
// process running a call longer than the hold lifetime. The killed process's hold comes back and
// its claim is taken over (the retry runs once); the live process's hold is renewed and its call
// settles. Real processes on one PostgreSQL, so this runs with DATABASE_URL (CI runs both ways).
// CLAIM_LIFETIME_SECONDS is 6 here (90 by default): release takes at most the lifetime plus one
// sweep (a sixth of it).
import { afterAll, describe, expect, it } from 'vitest';
import { useProcessCluster } from '../../test-support/process-cluster.ts';
import { sendJson as send } from '../../test-support/server-process.ts';

const LIFETIME_SECONDS = Number(process.env.CRASH_TEST_LIFETIME_SECONDS ?? 6);

describe.runIf(process.env.DATABASE_URL)('a process killed mid-call', () => {
  const cluster = useProcessCluster();
  const startServer = () =>
    cluster.start({ PROVIDER_TIMEOUT_MS: String((LIFETIME_SECONDS * 3 + 30) * 1000), CLAIM_LIFETIME_SECONDS: String(LIFETIME_SECONDS) });
  // Before the cluster closes (its hook was registered first): no graceful stop for a process a call still holds.
  afterAll(() => {
    for (const { child } of cluster.servers) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  const heldCents = async (subject: string) => {
    const { rows } = await cluster.database.db.query<{ held: number }>(
      "SELECT a.held_cents::int AS held FROM ledger_accounts a JOIN users u ON u.id = a.user_id WHERE u.subject = $1 AND a.kind = 'user_credits'",
      [subject],
    );
    return rows[0]?.held ?? 0;
  };

  it('releases the dead process hold within the lifetime, renews the live one, and lets the key be retried once', async () => {
    const [victim, survivor] = [await startServer(), await startServer()];
    const owner = await cluster.issuer.sign({ sub: 'crash-owner' });
    const victimCaller = await cluster.issuer.sign({ sub: 'crash-victim' });
    const longCaller = await cluster.issuer.sign({ sub: 'crash-long' });
    const app = await send(survivor.base, 'POST', '/api/app/', owner, { name: 'Crash', type: 'prompt', visibility: 'public', price_cents: 50 });
    await send(survivor.base, 'PATCH', `/api/app/${app.body.slug}/update_status/`, owner, { status: 'live' });
    const callUrl = `/api/app/${app.body.slug}/completion-messages`;

    // Both upstream calls outlive the hold lifetime.
    cluster.upstream.setBehaviour({ delayMs: (LIFETIME_SECONDS * 2 + 2) * 1000 });
    const before = cluster.upstream.requests.length;
    const longCall = send(survivor.base, 'POST', callUrl, longCaller, { inputs: { query: 'long' } });
    const doomed = send(victim.base, 'POST', callUrl, victimCaller, { inputs: { query: 'crash' } }, { 'idempotency-key': 'crash-key' }).catch(() => null);
    while (cluster.upstream.requests.length < before + 2) await new Promise((resolve) => setTimeout(resolve, 20));
    cluster.upstream.setBehaviour({ delayMs: 0 });
    expect(await heldCents('crash-victim')).toBeGreaterThan(0);

    victim.child.kill('SIGKILL');
    const killedAt = performance.now();
    await doomed;

    // A retry with the same key on the live process waits for the dead claim to expire, then runs.
    const retry = send(survivor.base, 'POST', callUrl, victimCaller, { inputs: { query: 'crash' } }, { 'idempotency-key': 'crash-key' });
    while ((await heldCents('crash-victim')) > 0 && performance.now() - killedAt < 200_000) await new Promise((resolve) => setTimeout(resolve, 100));
    const releasedAfterMs = performance.now() - killedAt;
    console.log(`orphaned hold released ${Math.round(releasedAfterMs)} ms after kill -9 (CLAIM_LIFETIME_SECONDS=${LIFETIME_SECONDS})`);
    expect(releasedAfterMs).toBeLessThan((LIFETIME_SECONDS + LIFETIME_SECONDS / 6 + 2) * 1000);

    const retried = await retry;
    expect(retried.status).toBe(200);
    const replay = await send(survivor.base, 'POST', callUrl, victimCaller, { inputs: { query: 'crash' } }, { 'idempotency-key': 'crash-key' });
    expect(replay.body.id).toBe(retried.body.id);
    expect((await send(survivor.base, 'GET', '/api/billing/balance/', victimCaller)).body.credits_cents).toBe(450);

    // The live process kept its hold past the lifetime, and its call settled.
    const long = await longCall;
    expect(long.status).toBe(200);
    expect((await send(survivor.base, 'GET', '/api/billing/balance/', longCaller)).body.credits_cents).toBe(450);
    const { rows } = await cluster.database.db.query<{ total: number }>('SELECT coalesce(sum(amount_cents), 0)::int AS total FROM ledger_entries');
    expect(rows[0]!.total).toBe(0);
    survivor.child.kill('SIGTERM');
  }, 240_000);
});
