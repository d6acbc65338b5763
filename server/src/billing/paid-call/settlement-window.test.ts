// The settlement window (SETTLEMENT_WINDOW_CALLS) bounds how many paid calls are answered before
// their settlement commits, on both databases. The calls whose journal line is still being written
// count in it too: the journal writes a turn's lines together (decision 0052), so calls settled in
// the same turn would otherwise all see a window with room.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createPaidTestContext } from '../../test-support/app.ts';
import { deliveredCall } from '../../test-support/delivered-call.ts';
import { interceptedDatabase } from '../../test-support/intercepted-database.ts';
import { createPaidCalls } from './service.ts';

const ctx = await createPaidTestContext({ RATE_LIMIT_PER_MINUTE: '100000' });
const { appDb: raw, api } = ctx;
afterAll(() => ctx.close());

describe('the settlement window', () => {
  it('counts the calls still being journaled: of calls settled in one turn, only the window is answered first', async () => {
    const owner = await ctx.tokenFor('window-owner');
    const caller = await ctx.tokenFor('window-caller');
    const app = (await api('POST', '/api/app/', owner, { name: 'Window', type: 'prompt', visibility: 'public', price_cents: 3 })).json();
    const ownerId = (await api('GET', '/api/auth/profile/', owner)).json().user.id as string;
    const callerId = (await api('GET', '/api/auth/profile/', caller)).json().user.id as string;

    // A process of its own on the same database, whose settlements wait while `stalled` is set.
    let stalled: Promise<void> | null = null;
    let resume: () => void = () => undefined;
    const stalling = interceptedDatabase(raw, (sql) => (sql.includes('WITH items AS') && stalled ? stalled.then(() => undefined) : undefined));
    const paid = createPaidCalls(stalling, {
      platformFeeBps: 0,
      settlementWindowCalls: 1,
      journalDirectory: mkdtempSync(path.join(tmpdir(), 'window-journal-')),
    });
    try {
      const payer = { userId: callerId, apiKeyId: null, monthlySpendLimitCents: null, dailySpendLimitCents: null };
      const charges = await Promise.all([0, 1, 2].map(() => paid.take(payer, { appId: app.id, listPriceCents: 3, ownerId, modelCost: null })));
      const delivered = () => deliveredCall({ appId: app.id, ownerId, callerId, name: 'window' });
      stalled = new Promise((resolve) => {
        resume = resolve;
      });
      // All three in one turn: settle() resolves when the call may be answered.
      const answered = new Set<number>();
      const settling = charges.map((charge, index) => paid.settle(charge, delivered()).then(() => answered.add(index)));
      await vi.waitFor(() => expect(answered.size).toBe(1), { timeout: 10_000, interval: 10 });
      // The other two wait for their commits, which are stalled.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(answered.size).toBe(1);
      stalled = null;
      resume();
      await Promise.all(settling);
      expect(answered.size).toBe(3);
      const charged = await raw.query(
        'SELECT count(*)::int AS n FROM ledger_transactions t JOIN invocations i ON t.id = i.ledger_transaction_id WHERE i.app_id = $1',
        [app.id],
      );
      expect(charged.rows[0]).toEqual({ n: 3 });
    } finally {
      stalled = null;
      resume();
      await paid.close();
    }
  });
});
