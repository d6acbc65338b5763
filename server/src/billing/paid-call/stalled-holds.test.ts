// A live process whose settlements stall longer than the hold lifetime (a row lock on a creator's
// earnings row, a slow database) keeps the holds that owe its answered calls. On PostgreSQL the
// stalled settlement statement holds the row of its lease's hold, so the process's renewal of its
// holds (one UPDATE of them all) waited behind it, every hold expired while the process lived, and
// its own sweeper released them: the calls answered from them, journaled only in the process's
// file, went free once the stall ended (or, after a kill -9, "its hold was released before it
// settled"). answer-first-stalled-crash.test.ts met this once on a loaded machine (252 calls).
// Here the stall is the test's, and it also holds the renewals back, so the holds expire whatever
// the renewal's SQL does: the sweeps that run meanwhile must not release them.

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../db/client.ts';
import { createPaidTestContext, type PaidTestContext } from '../../test-support/app.ts';
import { chargedCalls } from '../../test-support/call-charges.ts';
import { interceptedDatabase } from '../../test-support/intercepted-database.ts';
import { answeredCalls } from '../../test-support/paid-call.ts';
import { renewHolds, reserveCharge, sweepExpiredHolds } from './holds.ts';
import { EXPIRED_HOLDS_SQL } from './queries.ts';

const CREDITS = 10_000;
const CALLS = 60;
const LIFETIME_SECONDS = 3;

let ctx: PaidTestContext;
let raw: Database;
/** The app's database, through the test's hook. */
let wrapped: Database;
let stalled: Promise<void> | null = null;
let resume: () => void = () => undefined;
/** The sweeper's rounds that looked for expired holds. */
let sweeps = 0;
/** Runs after the sweeper's expired-holds query answered, before it releases any (a race's other side). */
let afterExpiredQuery: (() => Promise<void>) | null = null;

function stalling(db: Database): Database {
  raw = db;
  wrapped = interceptedDatabase(db, async (sql, params) => {
    if (sql === EXPIRED_HOLDS_SQL) {
      sweeps++;
      if (afterExpiredQuery) {
        const result = await db.query(sql, params as unknown[]);
        await afterExpiredQuery();
        return result;
      }
    }
    // The settlements wait, and so do the renewals (behind the settlement's lock on a hold, or a frozen loop).
    if (stalled && (sql.includes('WITH items AS') || sql.startsWith('UPDATE credit_holds SET expires_at'))) await stalled;
    return undefined;
  });
  return wrapped;
}

beforeAll(async () => {
  ctx = await createPaidTestContext(
    {
      SIGNUP_CREDITS_CENTS: String(CREDITS),
      SETTLEMENT_WINDOW_CALLS: '256',
      PLATFORM_FEE_BPS: '0',
      RATE_LIMIT_PER_MINUTE: '100000',
      CLAIM_LIFETIME_SECONDS: String(LIFETIME_SECONDS),
      // Never copied to answered_calls: the calls are owed only by this process's journal file and its holds.
      ANSWER_JOURNAL_COPY_AFTER_MS: '3600000',
    },
    { wrapDatabase: stalling },
  );
}, 60_000);
afterAll(async () => {
  stalled = null;
  resume();
  await ctx?.close();
});

const sql = async <Row>(text: string, params: unknown[] = []) => (await raw.query<Row>(text, params)).rows;

describe('a live process whose settlements stall longer than its holds live', () => {
  it('keeps the holds that owe its answered calls, and charges every call once the stall ends', async () => {
    const owner = await ctx.tokenFor('stalled-holds-owner');
    const caller = await ctx.tokenFor('stalled-holds-caller');
    const created = await ctx.liveApp(owner, { name: 'Stalled holds', price_cents: 1 });
    const callerId = (await ctx.api('GET', '/api/auth/profile/', caller)).json().user.id as string;

    stalled = new Promise((resolve) => {
      resume = resolve;
    });
    const answered = await answeredCalls(ctx.app, created.slug, caller, CALLS);
    // Several leases (slices of 20 calls, growing) hold the answered calls' prices.
    const holds = await sql<{ id: string }>('SELECT id FROM credit_holds');
    expect(holds.length).toBeGreaterThan(1);

    // Every hold expires unrenewed; then two whole rounds of the sweeper run while the process lives.
    await vi.waitFor(async () => expect(await sql('SELECT 1 FROM credit_holds WHERE expires_at >= now()')).toEqual([]), {
      timeout: 30_000,
      interval: 100,
    });
    const seen = sweeps;
    await vi.waitFor(() => expect(sweeps).toBeGreaterThanOrEqual(seen + 2), { timeout: 30_000, interval: 100 });
    const left = (await sql<{ id: string }>('SELECT id FROM credit_holds')).map((row) => row.id);

    // The stall ends: every answered call is charged once, from its lease's hold.
    stalled = null;
    resume();
    // None of the holds was swept; a slice reserved ahead that no call used may have been released
    // as idle (it owes nothing). Every call being charged below shows the owing ones were kept.
    expect(left.length).toBeGreaterThan(0);
    expect(holds.map((row) => row.id)).toEqual(expect.arrayContaining(left));
    await vi.waitFor(() => expect(ctx.app.settledReads()).toBeNull(), { timeout: 30_000, interval: 100 });
    expect(await chargedCalls(raw)).toEqual({ ids: [...answered].sort(), orphans: 0 });
    const [credits] = await sql<{ balance: number }>("SELECT balance_cents::int AS balance FROM ledger_accounts WHERE kind = 'user_credits' AND user_id = $1", [
      callerId,
    ]);
    expect(credits!.balance).toBe(CREDITS - CALLS);
    expect(await sql('SELECT 1 FROM answered_calls')).toEqual([]);
    const [sums] = await sql<{ total: number }>('SELECT coalesce(sum(amount_cents), 0)::int AS total FROM ledger_entries');
    expect(sums!.total).toBe(0);
  }, 120_000);

  it('does not release a hold renewed, or journaled in answered_calls, after the sweep found it expired', async () => {
    const caller = await ctx.tokenFor('swept-caller');
    const callerId = (await ctx.app.inject({ method: 'GET', url: '/api/auth/profile/', headers: { authorization: `Bearer ${caller}` } })).json().user
      .id as string;
    const renewed = await reserveCharge(raw, { userId: callerId, amountCents: 5, apiKeyId: null, monthlySpendLimitCents: null });
    const owing = await reserveCharge(raw, { userId: callerId, amountCents: 7, apiKeyId: null, monthlySpendLimitCents: null });
    await raw.query("UPDATE credit_holds SET expires_at = now() - interval '1 second' WHERE id = ANY($1::uuid[])", [[renewed.id, owing.id]]);
    // Between the sweep's query and its release: the owner renews one, another process journals a call on the other.
    afterExpiredQuery = async () => {
      afterExpiredQuery = null;
      await raw.query("UPDATE credit_holds SET expires_at = now() + interval '1 minute' WHERE id = $1", [renewed.id]);
      await raw.query("INSERT INTO answered_calls (id, hold_id, settlement) VALUES (gen_random_uuid(), $1, '{}')", [owing.id]);
    };
    expect(await sweepExpiredHolds(wrapped)).toBe(0);
    expect((await sql<{ id: string }>('SELECT id FROM credit_holds WHERE id = ANY($1::uuid[])', [[renewed.id, owing.id]])).length).toBe(2);
    await raw.query('DELETE FROM answered_calls WHERE hold_id = $1', [owing.id]);
    await raw.query('DELETE FROM credit_holds WHERE id = ANY($1::uuid[])', [[renewed.id, owing.id]]);
    await raw.query("UPDATE ledger_accounts SET held_cents = held_cents - 12 WHERE kind = 'user_credits' AND user_id = $1", [callerId]);
  }, 60_000);
});

describe.runIf(process.env.DATABASE_URL)('renewing holds while a statement holds one of them', () => {
  it('renews the others at once, without waiting for the lock', async () => {
    const caller = await ctx.tokenFor('renew-caller');
    const callerId = (await ctx.app.inject({ method: 'GET', url: '/api/auth/profile/', headers: { authorization: `Bearer ${caller}` } })).json().user
      .id as string;
    const locked = await reserveCharge(raw, { userId: callerId, amountCents: 2, apiKeyId: null, monthlySpendLimitCents: null, lifetimeSeconds: 5 });
    const free = await reserveCharge(raw, { userId: callerId, amountCents: 3, apiKeyId: null, monthlySpendLimitCents: null, lifetimeSeconds: 5 });
    await raw.transaction(async (tx) => {
      // As a stalled settlement does: it updated the hold and waits for another row.
      await tx.query('UPDATE credit_holds SET amount_cents = amount_cents WHERE id = $1', [locked.id]);
      const renewal = renewHolds(raw, [locked.id, free.id], 3600);
      const outcome = await Promise.race([renewal.then(() => 'renewed'), new Promise((resolve) => setTimeout(() => resolve('waited'), 5_000))]);
      expect(outcome).toBe('renewed');
    });
    const rows = await sql<{ id: string; long: boolean }>(
      "SELECT id, expires_at > now() + interval '1 minute' AS long FROM credit_holds WHERE id = ANY($1::uuid[])",
      [[locked.id, free.id]],
    );
    expect(Object.fromEntries(rows.map((row) => [row.id, row.long]))).toEqual({ [locked.id]: false, [free.id]: true });
  }, 60_000);
});
