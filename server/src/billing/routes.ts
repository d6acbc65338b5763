// Billing reads for the signed-in user: balances and their own ledger entries, newest first.
// The reads are small enough to live beside their routes; they only ever see the user's own
// accounts (user_credits as "credits", creator_earnings as "earnings").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { BillingBalance, ErrorResponse, LedgerPage, LedgerQuery } from '@tollbooth/contract';
import { requireAuth } from '../auth/plugin.ts';
import type { Database, Queryable } from '../db/client.ts';
import { invalidParam } from '../errors.ts';

const ACCOUNT_NAMES = { user_credits: 'credits', creator_earnings: 'earnings' } as const;
type UserAccountKind = keyof typeof ACCOUNT_NAMES;

const toDollars = (cents: number) => cents / 100;

export async function readBillingBalance(db: Queryable, userId: string): Promise<BillingBalance> {
  const { rows } = await db.query<{ kind: UserAccountKind; balance_cents: number }>(
    "SELECT kind, balance_cents FROM ledger_accounts WHERE kind IN ('user_credits', 'creator_earnings') AND user_id = $1",
    [userId],
  );
  const balance = (kind: UserAccountKind) => rows.find((row) => row.kind === kind)?.balance_cents ?? 0;
  const credits = balance('user_credits');
  const earnings = balance('creator_earnings');
  return { credits_cents: credits, credits: toDollars(credits), earnings_cents: earnings, earnings: toDollars(earnings) };
}

interface LedgerEntryRow {
  id: number;
  transaction_id: string;
  kind: string;
  description: string;
  account_kind: UserAccountKind;
  amount_cents: number;
  created_at: Date;
}

/** A cursor is the id of the last entry of the previous page; it must be one of the user's own entries. */
function parseCursor(before: string | undefined): number | null {
  if (before === undefined) return null;
  const id = /^[1-9]\d{0,15}$/.test(before) ? Number(before) : Number.NaN;
  if (!Number.isSafeInteger(id)) throw invalidParam('before', 'is not a valid cursor');
  return id;
}

/**
 * Keyset pagination over (created_at, id), newest first. Each of the user's (at most two) accounts
 * is read through its (account_id, created_at DESC, id DESC) index and the two runs are merged,
 * so a page costs the same however long the history is.
 */
export async function listLedgerEntries(db: Queryable, userId: string, query: { limit: number; before?: string }): Promise<LedgerPage> {
  const cursorId = parseCursor(query.before);
  if (cursorId !== null) {
    const owned = await db.query(
      `SELECT 1 FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
       WHERE e.id = $1 AND a.user_id = $2 AND a.kind IN ('user_credits', 'creator_earnings')`,
      [cursorId, userId],
    );
    if (owned.rows.length === 0) throw invalidParam('before', 'is not a valid cursor');
  }
  const afterCursor = cursorId === null ? '' : 'AND (e.created_at, e.id) < (SELECT c.created_at, c.id FROM ledger_entries c WHERE c.id = $3)';
  const { rows } = await db.query<LedgerEntryRow>(
    `SELECT e.id, e.transaction_id, t.kind, t.description, a.kind AS account_kind, e.amount_cents, e.created_at
     FROM ledger_accounts a
     CROSS JOIN LATERAL (
       SELECT e.id, e.transaction_id, e.amount_cents, e.created_at FROM ledger_entries e
       WHERE e.account_id = a.id ${afterCursor}
       ORDER BY e.created_at DESC, e.id DESC
       LIMIT $2
     ) e
     JOIN ledger_transactions t ON t.id = e.transaction_id
     WHERE a.kind IN ('user_credits', 'creator_earnings') AND a.user_id = $1
     ORDER BY e.created_at DESC, e.id DESC
     LIMIT $2`,
    cursorId === null ? [userId, query.limit + 1] : [userId, query.limit + 1, cursorId],
  );
  const page = rows.slice(0, query.limit);
  return {
    results: page.map((row) => ({
      id: row.id,
      transaction_id: row.transaction_id,
      kind: row.kind,
      description: row.description,
      account: ACCOUNT_NAMES[row.account_kind],
      amount_cents: row.amount_cents,
      created_at: row.created_at.toISOString(),
    })),
    next_cursor: rows.length > query.limit ? String(page[page.length - 1]!.id) : null,
  };
}

const errors = { 400: ErrorResponse, 401: ErrorResponse };
const security = [{ bearer: [] }];
const tags = ['billing'];

export const billingRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    '/billing/balance/',
    {
      preHandler: app.authenticate,
      schema: {
        tags,
        summary: "The signed-in user's credit and earnings balances",
        description: 'Integer cents, and dollars for display. An account that does not exist yet reads as 0.',
        security,
        response: { 200: BillingBalance, ...errors },
      },
    },
    async (request) => readBillingBalance(db, requireAuth(request).user.id),
  );

  app.get(
    '/billing/ledger/',
    {
      preHandler: app.authenticate,
      schema: {
        tags,
        summary: "The signed-in user's ledger entries, newest first",
        description:
          'Entries on your credits and earnings accounts only. Page with `limit` (1–100, default 50) and `before` = the previous page’s next_cursor (opaque; null on the last page).',
        security,
        querystring: LedgerQuery,
        response: { 200: LedgerPage, ...errors },
      },
    },
    async (request) => listLedgerEntries(db, requireAuth(request).user.id, request.query),
  );
};
