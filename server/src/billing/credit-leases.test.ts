import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestContext, type TestContext } from '../test-support/app.ts';
import { watchedDatabase } from '../test-support/watched-database.ts';
import { createCreditLeases } from './credit-leases.ts';

let ctx: TestContext;
let userId: string;
beforeAll(async () => {
  ctx = await createTestContext({ SIGNUP_CREDITS_CENTS: '10000' });
  const token = await ctx.tokenFor('lease-user');
  userId = (await ctx.app.inject({ method: 'GET', url: '/api/auth/profile/', headers: { authorization: `Bearer ${token}` } })).json().user.id;
});
afterAll(() => ctx?.close());

const account = async () =>
  (
    await ctx.database.db.query<{ balance_cents: number; held_cents: number }>(
      "SELECT balance_cents, held_cents FROM ledger_accounts WHERE kind = 'user_credits' AND user_id = $1",
      [userId],
    )
  ).rows[0]!;
const holds = async () => (await ctx.database.db.query<{ amount_cents: number }>('SELECT amount_cents FROM credit_holds ORDER BY created_at')).rows;

describe('credit leases', () => {
  it('serves many concurrent calls from few holds, and gives everything back when released', async () => {
    const leases = createCreditLeases(ctx.database.db, { callsPerLease: 20, idleReleaseMs: 60_000 });
    const charges = await Promise.all(Array.from({ length: 30 }, () => leases.take({ userId, apiKeyId: null, monthlySpendLimitCents: null, priceCents: 10 })));
    expect(charges.every((charge) => charge.amountCents === 10)).toBe(true);
    // 30 calls at 10 cents from leases of 200 cents: two holds, 400 cents held in all.
    expect((await holds()).map((hold) => hold.amount_cents)).toEqual([200, 200]);
    expect(await account()).toEqual({ balance_cents: 10_000, held_cents: 400 });
    for (const charge of charges) await leases.giveBack(charge);
    await leases.close();
    expect(await holds()).toEqual([]);
    expect(await account()).toEqual({ balance_cents: 10_000, held_cents: 0 });
  });

  it('reserves the next slice in the background once the current one is down to its last quarter', async () => {
    let reservations = 0;
    const db = watchedDatabase(ctx.database.db, { onQuery: (sql) => void (sql.trimStart().startsWith('WITH size AS') && reservations++) });
    const leases = createCreditLeases(db, { callsPerLease: 8, idleReleaseMs: 60_000 });
    const take = () => leases.take({ userId, apiKeyId: null, monthlySpendLimitCents: null, priceCents: 10 });
    const charges = [];
    for (let i = 0; i < 5; i++) charges.push(await take());
    expect(reservations).toBe(1);
    // The sixth call leaves two calls' worth (a quarter of 8): the next slice is asked for at once, before anyone waits for it.
    charges.push(await take());
    await vi.waitFor(() => expect(reservations).toBe(2), { timeout: 30_000 });
    for (let i = 0; i < 10; i++) charges.push(await take());
    // 16 calls from two slices of 80 cents; the second is down to its last quarter, so a third is reserved ahead.
    await vi.waitFor(() => expect(reservations).toBe(3), { timeout: 30_000 });
    expect(charges.map((charge) => charge.hold.id).filter((id, index, all) => all.indexOf(id) === index)).toHaveLength(2);
    for (const charge of charges) await leases.giveBack(charge);
    await leases.close();
    expect(await holds()).toEqual([]);
    expect(await account()).toEqual({ balance_cents: 10_000, held_cents: 0 });
  });

  it('holds exactly one call when credits are scarce, so another process can use the rest', async () => {
    await ctx.database.db.query("UPDATE ledger_accounts SET held_cents = 9950 WHERE kind = 'user_credits' AND user_id = $1", [userId]);
    const leases = createCreditLeases(ctx.database.db, { callsPerLease: 20 });
    const charge = await leases.take({ userId, apiKeyId: null, monthlySpendLimitCents: null, priceCents: 10 });
    expect((await holds()).map((hold) => hold.amount_cents)).toEqual([10]);
    await leases.giveBack(charge);
    await leases.close();
    expect(await holds()).toEqual([]);
    expect((await account()).held_cents).toBe(9_950);
    await ctx.database.db.query("UPDATE ledger_accounts SET held_cents = 0 WHERE kind = 'user_credits' AND user_id = $1", [userId]);
  });

  it('refuses with insufficient_credits when not even one call fits', async () => {
    await ctx.database.db.query("UPDATE ledger_accounts SET held_cents = 9995 WHERE kind = 'user_credits' AND user_id = $1", [userId]);
    const leases = createCreditLeases(ctx.database.db);
    await expect(leases.take({ userId, apiKeyId: null, monthlySpendLimitCents: null, priceCents: 10 })).rejects.toMatchObject({ code: 'insufficient_credits' });
    await leases.close();
    await ctx.database.db.query("UPDATE ledger_accounts SET held_cents = 0 WHERE kind = 'user_credits' AND user_id = $1", [userId]);
  });
});
