import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../db/client.ts';
import { createTestContext, type TestContext } from '../test-support/app.ts';
import { findOrCreateUserAccount, postLedgerTransaction } from './ledger.ts';
import { readBillingBalance } from './service.ts';

let ctx: TestContext;
let ada: string;
let bob: string;
let adaId: string;
let bobId: string;

const call = (url: string, token: string | null = ada) => ctx.app.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });

/** Moves cents from the payer's credits to the payee's earnings, as a charged call would. */
const charge = async (tx: Queryable, payerId: string, payeeId: string, cents: number, description: string) =>
  postLedgerTransaction(tx, {
    kind: 'call_charge',
    description,
    entries: [
      { accountId: await findOrCreateUserAccount(tx, 'user_credits', payerId), amountCents: -cents },
      { accountId: await findOrCreateUserAccount(tx, 'creator_earnings', payeeId), amountCents: cents },
    ],
  });

beforeAll(async () => {
  ctx = await createTestContext();
  ada = await ctx.tokenFor('ada');
  bob = await ctx.tokenFor('bob');
  adaId = (await call('/api/auth/profile/', ada)).json().user.id;
  bobId = (await call('/api/auth/profile/', bob)).json().user.id;
});
afterAll(() => ctx?.close());

interface Entry {
  id: number;
  transaction_id: string;
  kind: string;
  description: string;
  account: 'credits' | 'earnings';
  amount_cents: number;
  created_at: string;
}

const readAllPages = async (token: string, limit: number) => {
  const pages: Entry[][] = [];
  let cursor: string | null = null;
  do {
    // `cursor` is the shared name of the paging parameter, `before` its first name: both work.
    const name = pages.length % 2 === 0 ? 'cursor' : 'before';
    const response = await call(`/api/billing/ledger/?limit=${limit}${cursor ? `&${name}=${encodeURIComponent(cursor)}` : ''}`, token);
    expect(response.statusCode).toBe(200);
    const body: { results: Entry[]; has_more: boolean; next_cursor: string | null } = response.json();
    expect(body.has_more).toBe(body.next_cursor !== null);
    expect(response.headers['x-has-more']).toBe(String(body.has_more));
    expect(response.headers['x-next-cursor']).toBe(body.next_cursor ?? undefined);
    pages.push(body.results);
    cursor = body.next_cursor;
  } while (cursor && pages.length < 50);
  return pages;
};

describe('a new account', () => {
  it('starts with the sign-up grant: balance and one ledger entry', async () => {
    const carol = await ctx.tokenFor('carol');
    const balance = await call('/api/billing/balance/', carol);
    expect(balance.statusCode).toBe(200);
    expect(balance.json()).toEqual({ credits_cents: 500, credits: 5, earnings_cents: 0, earnings: 0 });

    const ledger = await call('/api/billing/ledger/', carol);
    expect(ledger.statusCode).toBe(200);
    expect(ledger.json()).toEqual({
      results: [
        {
          id: expect.any(Number),
          transaction_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          kind: 'signup_grant',
          description: 'Sign-up credits',
          account: 'credits',
          amount_cents: 500,
          currency: 'usd',
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        },
      ],
      has_more: false,
      next_cursor: null,
    });
  });

  it('reads 0 for accounts that do not exist', async () => {
    const { rows } = await ctx.database.db.query<{ id: string }>("INSERT INTO users (issuer, subject) VALUES ('test', 'no-accounts') RETURNING id");
    expect(await readBillingBalance(ctx.database.db, rows[0]!.id)).toEqual({ credits_cents: 0, credits: 0, earnings_cents: 0, earnings: 0 });
  });
});

describe('balances and ledger after calls', () => {
  beforeAll(async () => {
    const { db } = ctx.database;
    // Separate transactions, then a batch in one transaction whose entries share created_at.
    await db.transaction((tx) => charge(tx, adaId, bobId, 25, 'Call 1'));
    await db.transaction((tx) => charge(tx, adaId, bobId, 30, 'Call 2'));
    await db.transaction(async (tx) => {
      for (let n = 3; n <= 7; n++) await charge(tx, adaId, bobId, 10, `Call ${n}`);
    });
    await db.transaction((tx) => charge(tx, bobId, adaId, 40, 'Call back'));
  });

  it('answers cents and dollars for each side', async () => {
    expect((await call('/api/billing/balance/')).json()).toEqual({ credits_cents: 395, credits: 3.95, earnings_cents: 40, earnings: 0.4 });
    expect((await call('/api/billing/balance/', bob)).json()).toEqual({ credits_cents: 460, credits: 4.6, earnings_cents: 105, earnings: 1.05 });
  });

  it('pages through every entry once, newest first, including ties on created_at', async () => {
    const pages = await readAllPages(ada, 3);
    const entries = pages.flat();
    expect(pages.map((page) => page.length)).toEqual([3, 3, 3]);
    expect(entries).toHaveLength(9);
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(9);
    const order = entries.map((entry) => [Date.parse(entry.created_at), entry.id] as const);
    for (let n = 1; n < order.length; n++) {
      const [previousAt, previousId] = order[n - 1]!;
      const [at, id] = order[n]!;
      expect(previousAt > at || (previousAt === at && previousId > id)).toBe(true);
    }
    expect(entries[0]).toMatchObject({ kind: 'call_charge', description: 'Call back', account: 'earnings', amount_cents: 40 });
    expect(entries.at(-1)).toMatchObject({ kind: 'signup_grant', account: 'credits', amount_cents: 500 });
    expect(entries.filter((entry) => entry.account === 'credits').reduce((sum, entry) => sum + entry.amount_cents, 0)).toBe(395);

    const single = await readAllPages(ada, 100);
    expect(single).toHaveLength(1);
    expect(single[0]!.map((entry) => entry.id)).toEqual(entries.map((entry) => entry.id));
    const exact = await readAllPages(ada, 9);
    expect(exact.map((page) => page.length)).toEqual([9]);
  });

  it("shows only the user's own accounts", async () => {
    const adaEntries = (await readAllPages(ada, 100)).flat();
    const bobEntries = (await readAllPages(bob, 100)).flat();
    expect(bobEntries).toHaveLength(9);
    const adaIds = new Set(adaEntries.map((entry) => entry.id));
    expect(bobEntries.some((entry) => adaIds.has(entry.id))).toBe(false);
    // Both sides of one movement share the transaction, each seeing only its own entry.
    const adaTransactions = new Set(adaEntries.map((entry) => entry.transaction_id));
    expect(bobEntries.filter((entry) => adaTransactions.has(entry.transaction_id))).toHaveLength(8);
    expect(bobEntries.filter((entry) => entry.account === 'earnings').map((entry) => entry.amount_cents)).toEqual([10, 10, 10, 10, 10, 30, 25]);
    // No system account (outside funding, platform fees) ever shows.
    expect(bobEntries.filter((entry) => entry.kind === 'signup_grant')).toEqual([expect.objectContaining({ account: 'credits', amount_cents: 500 })]);
  });

  it("refuses a cursor that is malformed or points at someone else's entry", async () => {
    const bobEntry = (await call('/api/billing/ledger/?limit=1', bob)).json().results[0];
    for (const before of [String(bobEntry.id), 'abc', '0', '-1', '1.5', '99999999999999999999']) {
      const response = await call(`/api/billing/ledger/?before=${encodeURIComponent(before)}`);
      expect(response.statusCode, before).toBe(400);
      expect(response.json()).toMatchObject({ code: 'invalid_param', params: 'before' });
      const named = await call(`/api/billing/ledger/?cursor=${encodeURIComponent(before)}`);
      expect(named.statusCode, before).toBe(400);
      expect(named.json()).toMatchObject({ code: 'invalid_param', params: 'cursor' });
    }
  });

  it.each(['0', '101', 'ten'])('refuses limit=%s, naming limit', async (limit) => {
    const response = await call(`/api/billing/ledger/?limit=${limit}`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'invalid_param', params: 'limit' });
  });

  it('requires a signed-in user', async () => {
    expect((await call('/api/billing/balance/', null)).statusCode).toBe(401);
    expect((await call('/api/billing/ledger/', null)).statusCode).toBe(401);
  });
});
