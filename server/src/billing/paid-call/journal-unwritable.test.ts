// When the answer journal cannot be written (decisions 0042 and 0052), a paid call is not answered
// before its settlement commits: a crash could otherwise leave an answer that nobody paid for. Here
// the journal's directory is a regular file, and the settlement statement is held until the test
// lets it go: the answer must wait for it, on both databases.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/client.ts';
import { createPaidTestContext, type PaidTestContext } from '../../test-support/app.ts';
import { interceptedDatabase } from '../../test-support/intercepted-database.ts';

let ctx: PaidTestContext;
let raw: Database;
let stalled: Promise<void> | null = null;

/** The app's database, whose settlement statements wait while `stalled` is set. */
const stalling = (db: Database): Database => {
  raw = db;
  return interceptedDatabase(db, (sql) => (sql.includes('WITH items AS') && stalled ? stalled.then(() => undefined) : undefined));
};

beforeAll(async () => {
  const notADirectory = path.join(mkdtempSync(path.join(tmpdir(), 'journal-unwritable-')), 'file');
  writeFileSync(notADirectory, '');
  ctx = await createPaidTestContext(
    { ANSWER_JOURNAL_DIR: notADirectory, SETTLEMENT_WINDOW_CALLS: '256', RATE_LIMIT_PER_MINUTE: '100000' },
    { wrapDatabase: stalling },
  );
}, 60_000);
afterAll(() => ctx?.close());

describe('a paid call whose answer cannot be journaled', () => {
  it('is answered only once its settlement has committed', async () => {
    const owner = await ctx.tokenFor('unjournaled-owner');
    const caller = await ctx.tokenFor('unjournaled-caller');
    const inject = (method: 'POST' | 'PATCH', url: string, token: string, payload?: object) =>
      ctx.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
    const created = (await inject('POST', '/api/app/', owner, { name: 'Unjournaled', type: 'prompt', visibility: 'public', price_cents: 2 })).json();
    await inject('PATCH', `/api/app/${created.slug}/update_status/`, owner, { status: 'live' });

    let resume: () => void = () => undefined;
    stalled = new Promise((resolve) => {
      resume = resolve;
    });
    let answeredAt: 'before' | 'after' | null = null;
    let released = false;
    const call = inject('POST', `/api/app/${created.slug}/completion-messages`, caller, { inputs: { query: 'hello' } }).then((response) => {
      answeredAt = released ? 'after' : 'before';
      return response;
    });
    // Long enough for an answer-first call to be answered many times over; this one waits.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(answeredAt).toBeNull();
    released = true;
    stalled = null;
    resume();
    const response = await call;
    expect(response.statusCode).toBe(200);
    expect(answeredAt).toBe('after');
    // Charged once, with its invocation, by the time it was answered.
    const id = response.json().id as string;
    const charges = await raw.query(
      "SELECT 1 FROM invocations i JOIN ledger_transactions t ON t.id = i.ledger_transaction_id AND t.kind = 'call_charge' WHERE i.id = $1",
      [id],
    );
    expect(charges.rows).toHaveLength(1);
    expect((await raw.query('SELECT 1 FROM invocations WHERE id = $1', [id])).rows).toHaveLength(1);
  });
});
