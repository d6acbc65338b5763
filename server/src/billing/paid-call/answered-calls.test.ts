// Answered calls owed by their lease (decision 0039), on both databases. The app answers paid calls
// before their settlement commits; here that settlement never comes back (the statement is held, as
// a row lock or a kill -9 would leave it) and the process stops renewing its holds, as a dead
// process would. Each answered call was journaled first, so once the holds expire it is charged
// from them, exactly once: the sweeper keeps a hold that still owes calls, and the late settlement
// of the "dead" process, when it finally runs, charges nothing twice.

import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../db/client.ts';
import { createPaidTestContext, type PaidTestContext } from '../../test-support/app.ts';
import { chargedCalls } from '../../test-support/call-charges.ts';
import { interceptedDatabase } from '../../test-support/intercepted-database.ts';
import { expectLedgerBalanced } from '../../test-support/ledger.ts';
import { answeredCalls } from '../../test-support/paid-call.ts';
import { answerJournalDirectory } from './answer-journal.ts';
import { reserveCharge, sweepExpiredHolds } from './holds.ts';
import { createPaidCalls } from './service.ts';
import { recoverAnsweredCalls } from './settlement-recovery.ts';
import type { Settlement } from './settlement-sql.ts';

const CREDITS = 1_000;
const PRICE = 3;
const CALLS = 6;

let ctx: PaidTestContext;
let raw: Database;
/** The settlement statement waits for this while the process is "stalled". */
let stalled: Promise<void> | null = null;
let resume: () => void = () => undefined;
/** The process is "dead": it renews no hold. */
let dead = false;

/** The app's database: settlements wait while stalled, hold renewals stop once dead. */
function stalling(db: Database): Database {
  raw = db;
  return interceptedDatabase(db, async (sql) => {
    if (sql.includes('WITH items AS') && stalled) await stalled;
    if (dead && sql.startsWith('UPDATE credit_holds SET expires_at')) return { rows: [], rowCount: 0 };
    return undefined;
  });
}

beforeAll(async () => {
  ctx = await createPaidTestContext(
    { SIGNUP_CREDITS_CENTS: String(CREDITS), SETTLEMENT_WINDOW_CALLS: '256', PLATFORM_FEE_BPS: '0', RATE_LIMIT_PER_MINUTE: '100000' },
    { wrapDatabase: stalling },
  );
}, 60_000);
afterAll(() => ctx?.close());

const sql = async <Row>(text: string, params: unknown[] = []) => (await raw.query<Row>(text, params)).rows;

describe('answered calls left by a process that stopped before their settlement', () => {
  it('are charged once from the lease once its hold expires, and the late settlement charges nothing twice', async () => {
    const owner = await ctx.tokenFor('journal-owner');
    const caller = await ctx.tokenFor('journal-caller');
    const created = await ctx.liveApp(owner, { name: 'Journaled', price_cents: PRICE });
    const callerId = (await ctx.api('GET', '/api/auth/profile/', caller)).json().user.id as string;
    const ownerId = (await ctx.api('GET', '/api/auth/profile/', owner)).json().user.id as string;

    // The settlements stall; the calls are still answered (within the window), each journaled first.
    stalled = new Promise((resolve) => {
      resume = resolve;
    });
    const answered = await answeredCalls(ctx.app, created.slug, caller, CALLS);
    const directory = await answerJournalDirectory(raw, { dataDir: raw.kind === 'pglite' ? ctx.config.dataDir : null });
    // Each is in this process's journal file at once, and in answered_calls once its settlement is late (decision 0042).
    const files = readdirSync(directory).filter((name) => name.endsWith('.jsonl'));
    const journaled = files
      .flatMap((name) => readFileSync(path.join(directory, name), 'utf8').trim().split('\n'))
      .map((line) => JSON.parse(line).s.invocationId);
    expect(journaled.sort()).toEqual([...answered].sort());
    await vi.waitFor(
      async () => expect((await sql<{ id: string }>('SELECT id FROM answered_calls')).map((row) => row.id).sort()).toEqual([...answered].sort()),
      { timeout: 10_000, interval: 50 },
    );
    expect(await sql("SELECT 1 FROM ledger_transactions WHERE kind = 'call_charge'")).toEqual([]);

    // The process is gone: its holds are no longer renewed, and expire.
    dead = true;
    await raw.query("UPDATE credit_holds SET expires_at = now() - interval '1 second'");
    const [credits] = await sql<{ held: number }>("SELECT held_cents AS held FROM ledger_accounts WHERE kind = 'user_credits' AND user_id = $1", [callerId]);
    expect(credits!.held).toBeGreaterThanOrEqual(CALLS * PRICE);
    // A hold that still owes answered calls is not given back to the caller by the sweeper.
    expect(await sweepExpiredHolds(raw)).toBe(0);

    // Another process (or this one restarted) settles them from the lease, then releases what is left.
    const survivor = createPaidCalls(raw, { platformFeeBps: 0, holdLifetimeSeconds: 6 });
    try {
      await vi.waitFor(
        async () => {
          expect(await sql('SELECT 1 FROM answered_calls')).toEqual([]);
          expect(await sql('SELECT 1 FROM credit_holds')).toEqual([]);
        },
        { timeout: 30_000, interval: 200 },
      );
    } finally {
      await survivor.close();
    }

    const check = async () => {
      expect(await chargedCalls(raw)).toEqual({ ids: [...answered].sort(), orphans: 0 });
      const invocations = await sql<{ id: string }>("SELECT id FROM invocations WHERE caller_id = $1 AND status = 'success'", [callerId]);
      expect(invocations).toHaveLength(CALLS);
      const [credits] = await sql<{ balance: number; held: number }>(
        "SELECT balance_cents AS balance, held_cents AS held FROM ledger_accounts WHERE kind = 'user_credits' AND user_id = $1",
        [callerId],
      );
      expect(credits).toEqual({ balance: CREDITS - CALLS * PRICE, held: 0 });
      const [earnings] = await sql<{ balance: number }>(
        "SELECT balance_cents AS balance FROM ledger_accounts WHERE kind = 'creator_earnings' AND user_id = $1",
        [ownerId],
      );
      // The creator earns the prices less the model cost posted (decision 0025); no fee here.
      const [modelCosts] = await sql<{ balance: number }>("SELECT balance_cents AS balance FROM ledger_accounts WHERE kind = 'model_costs'");
      expect(earnings!.balance).toBe(CALLS * PRICE - (modelCosts?.balance ?? 0));
      expect(await sql('SELECT 1 FROM answered_calls')).toEqual([]);
      await expectLedgerBalanced(raw);
    };
    await check();

    // The stalled statement of the "dead" process finally runs (as a backend left waiting on a row
    // lock does once it is released): it must not charge the calls again.
    stalled = null;
    resume();
    await vi.waitFor(() => expect(ctx.app.settledReads()).toBeNull(), { timeout: 30_000, interval: 100 });
    await check();
  }, 120_000);

  /** A caller's call to a new app of an owner, its price held, as a process left it in answered_calls (not settled). */
  const journaledCall = async (name: string, call: Pick<Settlement, 'endUser' | 'mode' | 'turn'>) => {
    const owner = await ctx.tokenFor(`${name}-owner`);
    const caller = await ctx.tokenFor(`${name}-caller`);
    const created = (await ctx.api('POST', '/api/app/', owner, { name, type: 'prompt', visibility: 'public', price_cents: PRICE })).json();
    const callerId = (await ctx.api('GET', '/api/auth/profile/', caller)).json().user.id as string;
    const ownerId = (await ctx.api('GET', '/api/auth/profile/', owner)).json().user.id as string;
    const hold = await reserveCharge(raw, { userId: callerId, amountCents: PRICE, apiKeyId: null, monthlySpendLimitCents: null });
    const settlement: Settlement = {
      ...call,
      invocationId: randomUUID(),
      appId: created.id,
      ownerId,
      callerId,
      apiKeyId: null,
      latencyMs: 5,
      inputTokens: 3,
      outputTokens: 4,
      priceCents: PRICE,
      model: '',
      provider: '',
      modelCostMicros: 0,
      createdAt: new Date(),
      ledgerTransactionId: randomUUID(),
      description: `Call to ${name}`,
      charge: { hold, feeCents: 0 },
      cost: null,
    };
    const journal = () =>
      raw.query('INSERT INTO answered_calls (id, hold_id, settlement) VALUES ($1, $2, $3)', [settlement.invocationId, hold.id, JSON.stringify(settlement)]);
    await journal();
    // Its process is gone: the hold is no longer renewed.
    await raw.query("UPDATE credit_holds SET expires_at = now() - interval '1 second' WHERE id = $1", [hold.id]);
    const credits = async () =>
      (
        await sql<{ balance: number; held: number }>(
          "SELECT balance_cents AS balance, held_cents AS held FROM ledger_accounts WHERE kind = 'user_credits' AND user_id = $1",
          [callerId],
        )
      )[0];
    return { settlement, hold, journal, credits };
  };

  it('charges a journaled call without its details when they cannot be stored, as a live settlement would', async () => {
    // A chat turn continuing a conversation that does not exist: its message cannot be stored.
    const { settlement, credits } = await journaledCall('journaled-two', {
      endUser: 'someone',
      mode: 'chat',
      turn: { conversationId: randomUUID(), isNew: false, userContent: 'q', answer: 'a' },
    });

    expect(await recoverAnsweredCalls(raw)).toEqual({ settled: 1, dropped: [], failed: [] });
    expect(await sql('SELECT 1 FROM answered_calls')).toEqual([]);
    const [invocation] = await sql<{ end_user: string; conversation_id: string | null }>('SELECT end_user, conversation_id FROM invocations WHERE id = $1', [
      settlement.invocationId,
    ]);
    expect(invocation).toEqual({ end_user: '', conversation_id: null });
    expect(await chargedCalls(raw)).toMatchObject({ ids: expect.arrayContaining([settlement.invocationId]), orphans: 0 });
    expect(await sweepExpiredHolds(raw)).toBe(1);
    expect(await credits()).toEqual({ balance: CREDITS - PRICE, held: 0 });
  }, 60_000);

  it('drops a journaled call that was settled meanwhile, also when its hold has nothing left to draw', async () => {
    // The row a late settlement's delete did not see (it was copied after the statement began): the
    // call is charged already, and its lease's hold is used up, so drawing the price again would break
    // the hold's check before the invocation's unique id says "already settled".
    const { settlement, hold, journal, credits } = await journaledCall('journaled-three', { endUser: '', mode: 'completion', turn: null });
    expect(await recoverAnsweredCalls(raw)).toEqual({ settled: 1, dropped: [], failed: [] });
    expect(await sql<{ amount: number }>('SELECT amount_cents AS amount FROM credit_holds WHERE id = $1', [hold.id])).toEqual([{ amount: 0 }]);

    await journal();
    expect(await recoverAnsweredCalls(raw)).toEqual({ settled: 0, dropped: [{ id: settlement.invocationId, reason: 'already settled' }], failed: [] });
    expect(await sql('SELECT 1 FROM answered_calls')).toEqual([]);
    expect(await chargedCalls(raw)).toMatchObject({ ids: expect.arrayContaining([settlement.invocationId]), orphans: 0 });
    expect(await sweepExpiredHolds(raw)).toBe(1);
    expect(await credits()).toEqual({ balance: CREDITS - PRICE, held: 0 });
  }, 60_000);
});
