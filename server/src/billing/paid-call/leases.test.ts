import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestContext, type TestContext } from '../../test-support/app.ts';
import { watchedDatabase } from '../../test-support/watched-database.ts';
import { type CreditLeases, createCreditLeases, type LeasedCharge } from './leases.ts';

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

/** Leases of `callsPerLease` calls over a database that counts the slices they reserve, and `take` for one 10-cent call of the user. */
function countedLeases(callsPerLease: number) {
  let reservations = 0;
  const db = watchedDatabase(ctx.database.db, { onQuery: (sql) => void (sql.trimStart().startsWith('WITH size AS') && reservations++) });
  const leases = createCreditLeases(db, { callsPerLease, idleReleaseMs: 60_000 });
  const take = () => leases.take({ userId, apiKeyId: null, monthlySpendLimitCents: null, priceCents: 10 });
  return { leases, take, reservations: () => reservations };
}

/** Gives every charge back and closes the leases: then nothing is held and the credits are whole again. */
async function giveAllBack(leases: CreditLeases, charges: LeasedCharge[]) {
  for (const charge of charges) await leases.giveBack(charge);
  await leases.close();
  expect(await holds()).toEqual([]);
  expect(await account()).toEqual({ balance_cents: 10_000, held_cents: 0 });
}

describe('credit leases', () => {
  it('serves many concurrent calls from few holds, and gives everything back when released', async () => {
    const leases = createCreditLeases(ctx.database.db, { callsPerLease: 20, idleReleaseMs: 60_000 });
    const charges = await Promise.all(Array.from({ length: 30 }, () => leases.take({ userId, apiKeyId: null, monthlySpendLimitCents: null, priceCents: 10 })));
    expect(charges.every((charge) => charge.amountCents === 10)).toBe(true);
    // 30 calls at 10 cents from leases of 200 cents: two holds, 400 cents held in all.
    expect((await holds()).map((hold) => hold.amount_cents)).toEqual([200, 200]);
    expect(await account()).toEqual({ balance_cents: 10_000, held_cents: 400 });
    await giveAllBack(leases, charges);
  });

  it('reserves the next slice in the background once the current one is down to its last quarter', async () => {
    const { leases, take, reservations } = countedLeases(8);
    const charges = [];
    for (let i = 0; i < 5; i++) charges.push(await take());
    expect(reservations()).toBe(1);
    // The sixth call leaves two calls' worth (a quarter of 8): the next slice is asked for at once, before anyone waits for it.
    charges.push(await take());
    await vi.waitFor(() => expect(reservations()).toBe(2), { timeout: 30_000 });
    for (let i = 0; i < 10; i++) charges.push(await take());
    // 16 calls from two slices of 80 cents; the second is down to its last quarter, so a third is reserved ahead.
    await vi.waitFor(() => expect(reservations()).toBe(3), { timeout: 30_000 });
    expect(charges.map((charge) => charge.hold.id).filter((id, index, all) => all.indexOf(id) === index)).toHaveLength(2);
    await giveAllBack(leases, charges);
  });

  it('takes back at once what a call turns out not to need (keepOnly), so its lease serves more calls before it renews', async () => {
    // Three calls per lease: too few for a slice to be reserved ahead, so every reservation is one the calls waited for.
    const { leases, take, reservations } = countedLeases(3);
    const charges = [];
    for (let i = 0; i < 3; i++) {
      const charge = await take();
      // Each call needed 2 of its 10 cents: 8 go back to the lease now.
      leases.keepOnly(charge, 2);
      expect(charge.amountCents).toBe(2);
      charges.push(charge);
    }
    // 3 × 8 cents came back: 2 more calls fit the same 30-cent hold; without keepOnly the 4th call would reserve.
    for (let i = 0; i < 2; i++) charges.push(await take());
    expect(charges.map((charge) => charge.hold.id).filter((id, index, all) => all.indexOf(id) === index)).toHaveLength(1);
    expect(reservations()).toBe(1);
    leases.keepOnly(charges[0]!, 5); // never more than it took
    expect(charges[0]!.amountCents).toBe(2);
    await giveAllBack(leases, charges);
  });

  it('grows the slices reserved ahead for a caller who uses them up within a second, so a steady high rate renews rarely', async () => {
    const { leases, take, reservations } = countedLeases(8);
    const charges = [];
    // 120 calls in quick succession: fixed slices of 8 would take 15 reservations; doubling ones (8, 8, 16, 32, 64) take 5 or 6.
    for (let i = 0; i < 120; i++) {
      charges.push(await take());
      if (i % 8 === 7) await new Promise((resolve) => setImmediate(resolve));
    }
    expect(reservations()).toBeLessThanOrEqual(7);
    const sizes = (await holds()).map((hold) => hold.amount_cents);
    expect(Math.max(...sizes)).toBeGreaterThan(80);
    await giveAllBack(leases, charges);
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
  it('fits a slice into what is left of a key’s UTC day, gives the day back on release, and counts a new day from zero', async () => {
    const token = await ctx.tokenFor('lease-user');
    const created = await ctx.app.inject({ method: 'POST', url: '/api/keys/', headers: { authorization: `Bearer ${token}` }, payload: { name: 'daily' } });
    const keyId = created.json().id as string;
    const db = ctx.database.db;
    const today = new Date().toISOString().slice(0, 10);
    const spend = async () =>
      (
        await db.query<{ day: string; day_spent_cents: number; day_held_cents: number; held_cents: number }>(
          'SELECT day::text, day_spent_cents::int, day_held_cents::int, held_cents::int FROM api_key_spend WHERE api_key_id = $1',
          [keyId],
        )
      ).rows[0];
    const request = { userId, apiKeyId: keyId, monthlySpendLimitCents: 100_000, dailySpendLimitCents: 500, priceCents: 10 };

    // 500 cents left today: a slice of 20 calls (the day has at least twice it left).
    const leases = createCreditLeases(db, { callsPerLease: 20, idleReleaseMs: 60_000 });
    const first = await leases.take(request);
    expect((await holds()).map((hold) => hold.amount_cents)).toEqual([200]);
    expect(await spend()).toEqual({ day: today, day_spent_cents: 0, day_held_cents: 200, held_cents: 200 });
    await leases.giveBack(first);
    await leases.close();
    expect(await spend()).toEqual({ day: today, day_spent_cents: 0, day_held_cents: 0, held_cents: 0 });

    // 5 cents left today: less than twice a slice, so exactly one price would be held, and it does not fit.
    await db.query('UPDATE api_key_spend SET day_spent_cents = 495 WHERE api_key_id = $1', [keyId]);
    const later = createCreditLeases(db, { callsPerLease: 20, idleReleaseMs: 60_000 });
    await expect(later.take(request)).rejects.toMatchObject({
      code: 'key_limit_exceeded',
      message: expect.stringMatching(/daily spend limit \(\$5\.00 a UTC day\)/),
    });
    expect(await holds()).toEqual([]);
    await db.query('UPDATE api_key_spend SET day_spent_cents = 400 WHERE api_key_id = $1', [keyId]);
    const single = await later.take(request);
    expect((await holds()).map((hold) => hold.amount_cents)).toEqual([10]);
    expect(await spend()).toMatchObject({ day_spent_cents: 400, day_held_cents: 10 });

    // That hold was taken yesterday; today's first hold starts the day at zero, and releasing yesterday's leaves today alone.
    await db.query('UPDATE api_key_spend SET day = day - 1 WHERE api_key_id = $1', [keyId]);
    await db.query('UPDATE credit_holds SET spend_day = spend_day - 1 WHERE api_key_id = $1', [keyId]);
    const nextDay = createCreditLeases(db, { callsPerLease: 20, idleReleaseMs: 60_000 });
    const today1 = await nextDay.take(request);
    expect(await spend()).toEqual({ day: today, day_spent_cents: 0, day_held_cents: 200, held_cents: 210 });
    await later.giveBack(single);
    await later.close();
    expect(await spend()).toEqual({ day: today, day_spent_cents: 0, day_held_cents: 200, held_cents: 200 });
    await nextDay.giveBack(today1);
    await nextDay.close();
    expect(await spend()).toEqual({ day: today, day_spent_cents: 0, day_held_cents: 0, held_cents: 0 });
    expect(await account()).toEqual({ balance_cents: 10_000, held_cents: 0 });
  });
});
