// SETTLEMENT_GATHER_MS (decision 0060): the settlements of answered calls wait for others to share
// their statement and commit, up to a time or a count. What someone waits for goes at once, and
// takes the gathered ones with it: a call answered after its commit, a read (written()), shutdown.
// On both databases, through createPaidCalls, with the statements counted.

import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPaidTestContext, type PaidTestContext } from '../../test-support/app.ts';
import { deliveredCall } from '../../test-support/delivered-call.ts';
import { interceptedDatabase } from '../../test-support/intercepted-database.ts';
import { answeredCalls } from '../../test-support/paid-call.ts';
import { type CallCharge, createPaidCalls, type PaidCallOptions } from './service.ts';

const PRICE = 3;
const ctx = await createPaidTestContext({ RATE_LIMIT_PER_MINUTE: '100000' });
const { appDb: raw, api } = ctx;
let appId: string;
let ownerId: string;
let callerId: string;
let otherCallerId: string;

beforeAll(async () => {
  const owner = await ctx.tokenFor('gather-owner');
  const caller = await ctx.tokenFor('gather-caller');
  appId = (await api('POST', '/api/app/', owner, { name: 'Gathered', type: 'prompt', visibility: 'public', price_cents: PRICE })).json().id;
  ownerId = (await api('GET', '/api/auth/profile/', owner)).json().user.id;
  callerId = (await api('GET', '/api/auth/profile/', caller)).json().user.id;
  otherCallerId = (await api('GET', '/api/auth/profile/', await ctx.tokenFor('gather-other-caller'))).json().user.id;
}, 60_000);
afterAll(() => ctx.close());

/** A process of its own on the test's database, counting its settlement statements and the calls in each. */
function gatheringProcess(options: Partial<PaidCallOptions>) {
  const batches: number[] = [];
  const counting = interceptedDatabase(raw, (sql, params) => {
    if (sql.includes('WITH items AS')) batches.push((JSON.parse(String(params?.[0])) as unknown[]).length);
    return undefined;
  });
  const paid = createPaidCalls(counting, {
    platformFeeBps: 0,
    settlementWindowCalls: 64,
    journalDirectory: mkdtempSync(path.join(tmpdir(), 'gather-journal-')),
    ...options,
  });
  const payer = { userId: callerId, apiKeyId: null, monthlySpendLimitCents: null, dailySpendLimitCents: null };
  const take = () => paid.take(payer, { appId, listPriceCents: PRICE, ownerId, modelCost: null });
  const delivered = () => deliveredCall({ appId: appId, ownerId, callerId, name: 'gathered' });
  /** Answers `count` calls one after the other, each in turns of its own (as calls one at a time are). */
  const answerOneByOne = async (count: number) => {
    const ids: string[] = [];
    for (let index = 0; index < count; index++) {
      const charge: CallCharge = await take();
      const call = delivered();
      await paid.settle(charge, call);
      ids.push(call.invocationId);
      await new Promise((resolve) => setImmediate(resolve));
    }
    return ids;
  };
  return { paid, batches, take, delivered, answerOneByOne };
}

/** How many of these calls are recorded, and how many of them a call_charge ledger transaction charged. */
async function charged(ids: string[]): Promise<{ invocations: number; transactions: number }> {
  const { rows } = await raw.query<{ invocations: number; transactions: number }>(
    `SELECT (SELECT count(*)::int FROM invocations WHERE id = ANY($1::uuid[])) AS invocations,
            (SELECT count(*)::int FROM invocations i JOIN ledger_transactions t ON t.id = i.ledger_transaction_id AND t.kind = 'call_charge'
             WHERE i.id = ANY($1::uuid[])) AS transactions`,
    [ids],
  );
  return rows[0]!;
}

const WAIT = { timeout: 10_000, interval: 10 };

describe('settlements gathered (SETTLEMENT_GATHER_MS)', () => {
  it('writes calls answered one at a time in one statement once the oldest has waited its time', async () => {
    const { paid, batches, answerOneByOne } = gatheringProcess({ settlementGatherMs: 2000 });
    try {
      const ids = await answerOneByOne(5);
      // Answered at once; none of them is written before the oldest has waited its 2 s.
      expect(batches).toEqual([]);
      await vi.waitFor(() => expect(batches.length).toBeGreaterThan(0), WAIT);
      await paid.written();
      expect(batches.reduce((sum, size) => sum + size, 0)).toBe(5);
      expect(batches.length).toBeLessThan(5);
      expect(await charged(ids)).toEqual({ invocations: 5, transactions: 5 });
    } finally {
      await paid.close();
    }
  });

  it('writes at once what a read waits for: written() does not wait for the gathering time', async () => {
    const { paid, batches, answerOneByOne } = gatheringProcess({ settlementGatherMs: 60_000 });
    try {
      const ids = await answerOneByOne(3);
      expect(batches).toEqual([]);
      await paid.written();
      expect(batches).toEqual([3]);
      expect(await charged(ids)).toEqual({ invocations: 3, transactions: 3 });
    } finally {
      await paid.close();
    }
  });

  it('writes at once a call answered after its commit, with the calls gathered before it', async () => {
    const { paid, batches, answerOneByOne, take, delivered } = gatheringProcess({ settlementGatherMs: 60_000 });
    try {
      const ids = await answerOneByOne(2);
      const call = delivered();
      // An Idempotency-Key call (or a full window) answers only after its commit.
      await paid.settle(await take(), call, { beforeAnswer: true });
      expect(batches).toEqual([3]);
      expect(await charged([...ids, call.invocationId])).toEqual({ invocations: 3, transactions: 3 });
    } finally {
      await paid.close();
    }
  });

  it('writes 32 gathered calls without waiting for the time', async () => {
    const { paid, batches, take, delivered } = gatheringProcess({ settlementGatherMs: 60_000 });
    let closed = false;
    try {
      const charges = await Promise.all(Array.from({ length: 33 }, () => take()));
      const calls = charges.map(() => delivered());
      for (const [index, charge] of charges.entries()) await paid.settle(charge, calls[index]!);
      await vi.waitFor(() => expect(batches).toEqual([32]), WAIT);
      const ids = calls.map((call) => call.invocationId);
      await vi.waitFor(async () => expect(await charged(ids.slice(0, 32))).toEqual({ invocations: 32, transactions: 32 }), WAIT);
      // The 33rd is still gathering, and goes when shutdown waits for it.
      expect(await charged(ids.slice(32))).toEqual({ invocations: 0, transactions: 0 });
      closed = true;
      await paid.close();
      expect(batches).toEqual([32, 1]);
      expect(await charged(ids)).toEqual({ invocations: 33, transactions: 33 });
    } finally {
      if (!closed) await paid.close();
    }
  });

  it('charges each call once, with the money of every call, when gathered', async () => {
    const balance = async () =>
      Number(
        (
          await raw.query<{ cents: string }>(
            "SELECT coalesce(sum(e.amount_cents), 0) AS cents FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id WHERE a.user_id = $1 AND a.kind = 'creator_earnings'",
            [ownerId],
          )
        ).rows[0]!.cents,
      );
    const before = await balance();
    const { paid, answerOneByOne } = gatheringProcess({ settlementGatherMs: 20 });
    try {
      const ids = await answerOneByOne(10);
      await paid.written();
      expect(await charged(ids)).toEqual({ invocations: 10, transactions: 10 });
      expect((await balance()) - before).toBe(10 * PRICE);
    } finally {
      await paid.close();
    }
  });

  it('posts one ledger transaction per app, caller and description of a batch, which each call refers to (decision 0062)', async () => {
    const { paid, batches, take, delivered } = gatheringProcess({ settlementGatherMs: 60_000 });
    try {
      const otherPayer = { userId: otherCallerId, apiKeyId: null, monthlySpendLimitCents: null, dailySpendLimitCents: null };
      const calls = [
        { charge: await take(), call: delivered() },
        { charge: await take(), call: delivered() },
        { charge: await paid.take(otherPayer, { appId, listPriceCents: PRICE, ownerId, modelCost: null }), call: { ...delivered(), callerId: otherCallerId } },
        { charge: await take(), call: delivered() },
        { charge: await take(), call: { ...delivered(), description: 'Call to gathered, again' } },
      ];
      for (const { charge, call } of calls) await paid.settle(charge, call);
      await paid.written();
      expect(batches).toEqual([5]);
      const { rows } = await raw.query<{ description: string; reference: string; calls: string[]; credits: number; earnings: number }>(
        `SELECT t.description, t.reference,
           (SELECT array_agg(i.id::text ORDER BY i.id) FROM invocations i WHERE i.ledger_transaction_id = t.id) AS calls,
           (SELECT coalesce(sum(e.amount_cents), 0)::int FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'user_credits' WHERE e.transaction_id = t.id) AS credits,
           (SELECT coalesce(sum(e.amount_cents), 0)::int FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'creator_earnings' WHERE e.transaction_id = t.id) AS earnings
         FROM ledger_transactions t WHERE t.kind = 'call_charge' AND t.id IN (SELECT ledger_transaction_id FROM invocations WHERE id = ANY($1::uuid[]))
         ORDER BY t.description`,
        [calls.map(({ call }) => call.invocationId)],
      );
      const ids = (...indexes: number[]) => indexes.map((index) => calls[index]!.call.invocationId).sort();
      // Named by its first call; each carries its calls' money, and the entries of each account are one.
      expect(rows).toEqual([
        { description: 'Call to gathered', reference: `calls:${calls[2]!.call.invocationId}`, calls: ids(2), credits: -PRICE, earnings: PRICE },
        {
          description: 'Call to gathered (3 calls)',
          reference: `calls:${calls[0]!.call.invocationId}`,
          calls: ids(0, 1, 3),
          credits: -3 * PRICE,
          earnings: 3 * PRICE,
        },
        { description: 'Call to gathered, again', reference: `calls:${calls[4]!.call.invocationId}`, calls: ids(4), credits: -PRICE, earnings: PRICE },
      ]);
      const entries = await raw.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM ledger_entries e JOIN invocations i ON i.ledger_transaction_id = e.transaction_id AND i.id = $1 JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'user_credits'",
        [calls[0]!.call.invocationId],
      );
      expect(entries.rows[0]!.n).toBe(1);
    } finally {
      await paid.close();
    }
  });

  it("orders conversations of one batch by their calls' time, not the batch's", async () => {
    const { paid, batches, take, delivered } = gatheringProcess({ settlementGatherMs: 60_000 });
    try {
      const at = Date.now();
      const chat = (conversationId: string, isNew: boolean, ms: number) => ({
        ...delivered(),
        mode: 'chat' as const,
        createdAt: new Date(at + ms),
        turn: { conversationId, isNew, userContent: 'q', answer: 'a' },
      });
      const [older, newer] = [randomUUID(), randomUUID()];
      // The older conversation starts first; the newer starts, then the older goes on after it.
      for (const call of [chat(older, true, 0), chat(newer, true, 5), chat(older, false, 10), chat(newer, false, 8)]) await paid.settle(await take(), call);
      await paid.written();
      expect(batches).toEqual([4]);
      const { rows } = await raw.query<{ id: string; created: number; updated: number }>(
        `SELECT id, (extract(epoch FROM created_at) * 1000)::bigint - $2::bigint AS created, (extract(epoch FROM updated_at) * 1000)::bigint - $2::bigint AS updated
         FROM conversations WHERE id = ANY($1::uuid[]) ORDER BY updated_at DESC`,
        [[older, newer], at],
      );
      expect(rows.map((row) => ({ ...row, created: Number(row.created), updated: Number(row.updated) }))).toEqual([
        { id: older, created: 0, updated: 10 },
        { id: newer, created: 5, updated: 8 },
      ]);
    } finally {
      await paid.close();
    }
  });

  it('without gathering (the default), each call answered one at a time is written on the next turn', async () => {
    const { paid, batches, answerOneByOne } = gatheringProcess({});
    try {
      const ids = await answerOneByOne(1);
      await vi.waitFor(() => expect(batches).toEqual([1]), WAIT);
      await paid.written();
      expect(await charged(ids)).toEqual({ invocations: 1, transactions: 1 });
    } finally {
      await paid.close();
    }
  });
});

describe('the gateway with SETTLEMENT_GATHER_MS', () => {
  let gathering: PaidTestContext;
  beforeAll(async () => {
    gathering = await createPaidTestContext({
      SETTLEMENT_GATHER_MS: '30000',
      ANSWER_JOURNAL_COPY_AFTER_MS: '60000',
      PLATFORM_FEE_BPS: '0',
      RATE_LIMIT_PER_MINUTE: '100000',
    });
  }, 60_000);
  afterAll(() => gathering?.close());

  it('answers at once, and a read right after sees the charge without waiting for the gathering time', async () => {
    const owner = await gathering.tokenFor('gateway-gather-owner');
    const caller = await gathering.tokenFor('gateway-gather-caller');
    const created = await gathering.liveApp(owner, { name: 'Gathered call', price_cents: PRICE });
    const before = (await gathering.api('GET', '/api/billing/balance/', caller)).json().credits_cents as number;
    await answeredCalls(gathering.app, created.slug, caller, 3);
    const started = performance.now();
    const after = (await gathering.api('GET', '/api/billing/balance/', caller)).json().credits_cents as number;
    expect(before - after).toBe(3 * PRICE);
    // The read hurried the gathered settlements instead of waiting out their 30 s.
    expect(performance.now() - started).toBeLessThan(20_000);
  });
});
