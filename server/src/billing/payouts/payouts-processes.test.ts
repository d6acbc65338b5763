// Payouts across real server processes on one PostgreSQL (issue 23): "Withdraw now" clicked at
// once on two processes makes one transfer, and a process killed with -9 after it wrote the payout
// to the ledger and asked Stripe, before Stripe's answer came back, leaves a payout that another
// process finishes with that same transfer. PostgreSQL only (PGlite is one process's database).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StripeFake, startStripeFake, stripeEnv } from '../../test-support/fakes/stripe-fake.ts';
import { useProcessCluster } from '../../test-support/process-cluster.ts';
import { type ServerProcess, sendJson as send, stopServerProcess } from '../../test-support/server-process.ts';

describe.runIf(process.env.DATABASE_URL)('payouts from several processes', () => {
  const cluster = useProcessCluster();
  let stripe: StripeFake;
  beforeAll(async () => {
    stripe = await startStripeFake();
    stripe.setBalance('usd', 10_000_000);
  }, 60_000);
  // Before the cluster stops its processes: a transfer the fake holds would keep one from exiting.
  afterAll(async () => {
    stripe?.releaseStalled();
    await Promise.all(cluster.servers.map(stopServerProcess));
    await stripe?.close();
  });

  const startServer = (env: Record<string, string> = {}) =>
    cluster.start({
      ...stripeEnv(stripe),
      SETTLEMENT_WINDOW_CALLS: '0',
      SIGNUP_CREDITS_CENTS: '100000',
      CLAIM_LIFETIME_SECONDS: '3',
      PAYOUT_SWEEP_SECONDS: '0',
      ...env,
    });

  const sql = async <T>(text: string, params: unknown[] = []) => (await cluster.database.db.query<T & Record<string, unknown>>(text, params)).rows;
  const transfersTo = (account: string) => [...stripe.objects.values()].filter((o) => o.object === 'transfer' && o.destination === account);
  const ledgerBalanced = async () => expect(Number((await sql<{ t: string }>('SELECT coalesce(sum(amount_cents), 0) AS t FROM ledger_entries'))[0]!.t)).toBe(0);

  /** A creator with a connected, onboarded account and `calls` calls' earnings past the hold. */
  async function readyCreator(server: ServerProcess, subject: string, calls: number) {
    const owner = await cluster.issuer.sign({ sub: subject, email: `${subject}@example.com` });
    const caller = await cluster.issuer.sign({ sub: `${subject}-caller` });
    const created = await send(server.base, 'POST', '/api/app/', owner, { name: `App of ${subject}`, type: 'prompt', visibility: 'public', price_cents: 100 });
    expect(created.status).toBe(201);
    await send(server.base, 'PATCH', `/api/app/${created.body.slug}/update_status/`, owner, { status: 'live' });
    for (let i = 0; i < calls; i++) {
      const call = await send(server.base, 'POST', `/api/app/${created.body.slug}/completion-messages`, caller, { inputs: { query: 'x' } });
      expect(call.status).toBe(200);
    }
    const userId = (await send(server.base, 'GET', '/api/auth/profile/', owner)).body.user.id as string;
    await sql(
      `UPDATE ledger_entries SET created_at = created_at - interval '8 days' WHERE account_id = (SELECT id FROM ledger_accounts WHERE kind = 'creator_earnings' AND user_id = $1)`,
      [userId],
    );
    stripe.setWebhookUrl(`${server.base}/api/billing/webhook/`);
    const link = await send(server.base, 'POST', '/api/billing/payouts/connect/', owner);
    expect(link.status).toBe(200);
    await fetch(link.body.url, { redirect: 'manual' });
    await stripe.settled();
    const overview = (await send(server.base, 'GET', '/api/billing/payouts/', owner)).body;
    expect(overview.account.transfers_active).toBe(true);
    return { owner, userId, account: overview.account.stripe_account_id as string, available: overview.balances[0].available_cents as number };
  }

  it('Withdraw now clicked at once on two processes makes exactly one transfer', async () => {
    const [a, b] = await Promise.all([startServer(), startServer()]);
    const creator = await readyCreator(a, 'two-process-creator', 15);
    expect(creator.available).toBeGreaterThanOrEqual(1000);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => send((i % 2 === 0 ? a : b).base, 'POST', '/api/billing/payouts/withdraw/', creator.owner)),
    );
    const paid = answers.filter((r) => r.status === 200);
    expect(paid.length).toBeGreaterThan(0);
    expect(new Set(paid.map((r) => r.body.id)).size).toBe(1);
    for (const other of answers.filter((r) => r.status !== 200)) expect(other.body.message).toMatch(/below the payout minimum/);
    const transfers = transfersTo(creator.account);
    expect(transfers).toHaveLength(1);
    expect(transfers[0]!.amount).toBe(creator.available);
    expect(await sql('SELECT id FROM payouts WHERE user_id = $1', [creator.userId])).toHaveLength(1);
    await ledgerBalanced();
  }, 120_000);

  it('a process killed -9 between the ledger write and Stripe’s answer: another process finishes the payout with the one transfer', async () => {
    const victim = await startServer();
    const creator = await readyCreator(victim, 'crash-creator', 12);
    stripe.setWebhookUrl(null); // no transfer.created: the survivor must find the transfer itself
    stripe.transferFaults.stall = true;
    const withdrawing = send(victim.base, 'POST', '/api/billing/payouts/withdraw/', creator.owner).catch(() => null);
    const asked = () => stripe.requests.some((r) => r.method === 'POST' && r.path === '/v1/transfers' && r.body.destination === creator.account);
    while (!asked()) await new Promise((resolve) => setTimeout(resolve, 10));
    victim.child.kill('SIGKILL');
    await withdrawing;
    stripe.transferFaults.stall = false;

    // Written before Stripe was asked: the money is in transit, the payout sending, and Stripe made the transfer.
    const [payout] = await sql<{ id: string; status: string; amount_cents: string }>('SELECT * FROM payouts WHERE user_id = $1', [creator.userId]);
    expect(payout).toMatchObject({ status: 'sending' });
    expect(Number(payout!.amount_cents)).toBe(creator.available);
    expect(transfersTo(creator.account)).toHaveLength(1);
    const inTransit = await sql<{ b: string }>("SELECT balance_cents AS b FROM ledger_accounts WHERE kind = 'payouts_in_transit' AND user_id = $1", [
      creator.userId,
    ]);
    expect(Number(inTransit[0]!.b)).toBe(creator.available);

    // A "Withdraw now" on another process meanwhile answers that payout again; the scheduler of a
    // process with PAYOUT_SWEEP_SECONDS finishes it once it has waited CLAIM_LIFETIME_SECONDS.
    const survivor = await startServer({ PAYOUT_SWEEP_SECONDS: '1' });
    const started = performance.now();
    let status = 'sending';
    while (status === 'sending' && performance.now() - started < 30_000) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      status = (await sql<{ status: string }>('SELECT status FROM payouts WHERE id = $1', [payout!.id]))[0]!.status;
    }
    expect(status).toBe('paid');
    const transfers = transfersTo(creator.account);
    expect(transfers).toHaveLength(1);
    const [done] = await sql<{ stripe_transfer_id: string; attempts: number }>('SELECT * FROM payouts WHERE id = $1', [payout!.id]);
    expect(done).toMatchObject({ stripe_transfer_id: transfers[0]!.id });
    expect(done!.attempts).toBeGreaterThanOrEqual(2);
    const overview = (await send(survivor.base, 'GET', '/api/billing/payouts/', creator.owner)).body;
    expect(overview.balances[0]).toMatchObject({ in_transit_cents: 0, paid_out_cents: creator.available, available_cents: 0 });
    expect((await send(survivor.base, 'POST', '/api/billing/payouts/withdraw/', creator.owner)).status).toBe(409);
    expect(transfersTo(creator.account)).toHaveLength(1);
    await ledgerBalanced();
  }, 120_000);
});
