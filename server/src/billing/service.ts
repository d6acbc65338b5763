// Billing reads for the signed-in user: balances and their own ledger entries, newest first.
// They only ever see the user's own accounts (user_credits as "credits", creator_earnings as
// "earnings"). The SQL is in queries.ts; paid calls are charged in paid-call/service.ts, payments in
// payments/service.ts.
//
// Also what other features may ask of billing besides those two: a new user's accounts and
// sign-up credits (auth), the credits balance (profile), and recording a call that was refused
// before any charge (openai). They go through this file, never billing's internals.
import type { BillingBalance, LedgerPage } from '@tollbooth/contract';
import type { Database, Queryable } from '../db/client.ts';
import { takePage } from '../http/pagination.ts';
import { invalidParam } from '../platform/errors.ts';
import { findOrCreateUserAccount, findSystemAccount, postLedgerTransaction, readBalanceCents, type UserAccountKind } from './ledger.ts';
import { isOwnLedgerEntry, selectLedgerEntries, selectUserBalances, signupGrantExists } from './queries.ts';

export { type InvocationRecord, recordInvocation } from './paid-call/queries.ts';

const ACCOUNT_NAMES = { user_credits: 'credits', creator_earnings: 'earnings' } as const satisfies Record<UserAccountKind, string>;

type LedgerPageQuery = { limit: number; cursor?: string; before?: string };

const toDollars = (cents: number) => cents / 100;

export async function readBillingBalance(db: Queryable, userId: string): Promise<BillingBalance> {
  const rows = await selectUserBalances(db, userId);
  const balance = (kind: UserAccountKind) => rows.find((row) => row.kind === kind)?.balance_cents ?? 0;
  const credits = balance('user_credits');
  const earnings = balance('creator_earnings');
  return { credits_cents: credits, credits: toDollars(credits), earnings_cents: earnings, earnings: toDollars(earnings) };
}

/** A cursor is the id of the last entry of the previous page; it must be one of the user's own entries. */
function parseCursor(before: string | undefined, field: string): number | null {
  if (before === undefined) return null;
  const id = /^[1-9]\d{0,15}$/.test(before) ? Number(before) : Number.NaN;
  if (!Number.isSafeInteger(id)) throw invalidParam(field, 'is not a valid cursor');
  return id;
}

/** A page of entries; `cursor` is the shared name of the paging parameter (http/pagination.ts), `before` its first name. */
export async function listLedgerEntries(db: Queryable, userId: string, query: LedgerPageQuery): Promise<LedgerPage> {
  const cursorField = query.cursor === undefined ? 'before' : 'cursor';
  const cursorId = parseCursor(query.cursor ?? query.before, cursorField);
  if (cursorId !== null && !(await isOwnLedgerEntry(db, cursorId, userId))) throw invalidParam(cursorField, 'is not a valid cursor');
  const rows = await selectLedgerEntries(db, userId, query.limit + 1, cursorId);
  const page = takePage(rows, query.limit, (row) => String(row.id));
  return {
    results: page.items.map((row) => ({
      id: row.id,
      transaction_id: row.transaction_id,
      kind: row.kind,
      description: row.description,
      account: ACCOUNT_NAMES[row.account_kind],
      amount_cents: row.amount_cents,
      currency: row.currency,
      created_at: row.created_at.toISOString(),
    })),
    has_more: page.has_more,
    next_cursor: page.next_cursor,
  };
}

/** A new user's credits and earnings accounts, opened in the transaction that creates the user. */
export async function openUserAccounts(tx: Queryable, userId: string): Promise<void> {
  await findOrCreateUserAccount(tx, 'user_credits', userId);
  await findOrCreateUserAccount(tx, 'creator_earnings', userId);
}

/**
 * The sign-up credits, from outside funding into the user's credits, once per user (the ledger
 * reference `signup:<user id>`); false when they were already granted. The caller holds the user
 * row's lock, so two grants for one user cannot race.
 */
export async function grantSignupCredits(tx: Queryable, userId: string, cents: number): Promise<boolean> {
  if (await signupGrantExists(tx, userId)) return false;
  const credits = await findOrCreateUserAccount(tx, 'user_credits', userId);
  const funding = await findSystemAccount(tx, 'outside_funding');
  await postLedgerTransaction(tx, {
    kind: 'signup_grant',
    reference: `signup:${userId}`,
    description: 'Sign-up credits',
    entries: [
      { accountId: funding, amountCents: -cents },
      { accountId: credits, amountCents: cents },
    ],
  });
  return true;
}

/** The user's spendable credits, in cents (0 before their accounts exist). */
export function readCreditsCents(db: Queryable, userId: string): Promise<number> {
  return readBalanceCents(db, 'user_credits', userId);
}

export function createBillingService({ db }: { db: Database }) {
  return {
    readBalance: (userId: string) => readBillingBalance(db, userId),
    listLedgerEntries: (userId: string, query: LedgerPageQuery) => listLedgerEntries(db, userId, query),
  };
}

export type BillingService = ReturnType<typeof createBillingService>;

/** What credits.low needs (webhooks/, given through app.ts): each user's US-dollar credits and their last succeeded top-up, in cents. */
export async function readCreditAlertInputs(
  db: Queryable,
  userIds: string[],
): Promise<{ user_id: string; credits_cents: number; last_top_up_cents: number | null }[]> {
  if (userIds.length === 0) return [];
  const { rows } = await db.query<{ user_id: string; credits_cents: number; last_top_up_cents: number | null }>(
    `SELECT u.id AS user_id, coalesce(a.balance_cents, 0) AS credits_cents,
            (SELECT t.amount_cents FROM credit_top_ups t WHERE t.user_id = u.id AND t.status = 'succeeded' ORDER BY t.created_at DESC LIMIT 1) AS last_top_up_cents
       FROM users u LEFT JOIN ledger_accounts a ON a.kind = 'user_credits' AND a.user_id = u.id
      WHERE u.id = ANY($1::uuid[])`,
    [userIds],
  );
  return rows.map((row) => ({
    ...row,
    credits_cents: Number(row.credits_cents),
    last_top_up_cents: row.last_top_up_cents === null ? null : Number(row.last_top_up_cents),
  }));
}

/** Which of these users' accounts moved in [from, to): they have a statement for that month (statement.ready). */
export async function usersWithStatementActivity(db: Queryable, userIds: string[], from: Date, to: Date): Promise<string[]> {
  if (userIds.length === 0) return [];
  const { rows } = await db.query<{ user_id: string }>(
    `SELECT DISTINCT a.user_id FROM ledger_accounts a
      WHERE a.user_id = ANY($1::uuid[]) AND EXISTS (SELECT 1 FROM ledger_entries e WHERE e.account_id = a.id AND e.created_at >= $2 AND e.created_at < $3)`,
    [userIds, from, to],
  );
  return rows.map((row) => row.user_id);
}
