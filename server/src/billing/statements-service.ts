// Monthly statements (issue 23 item 6, decision 0036): a caller's and a creator's month in UTC,
// every figure read from the ledger (entries by their created_at, in [first of the month, first of
// the next)), grouped by the currency of the ledger account and never added across currencies.
// The opening and closing balances are sums of the account's entries before each bound, so
// opening + the month's movements = closing holds by construction; the detail lines name what
// each movement was (a top-up and its receipt, a refund, an app's calls, a subscription invoice).
import type {
  CallerStatementCurrency,
  CreatorStatementCurrency,
  Statement,
  StatementMonths,
  StatementOther,
  StatementPayout,
  StatementRole,
} from '@tollbooth/contract';
import type { Database, Queryable } from '../db/client.ts';
import { invalidParam } from '../errors.ts';
import type { StripeClient } from '../providers/stripe/client.ts';
import { tryRecordTopUpReceipt } from './statements-records.ts';

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;
/** A call's ledger transaction is written moments after the call (paid-call/settlement-sql.ts); two days cover any settlement, even a recovered one. */
const SETTLEMENT_SLACK = '2 days';
const PAYOUT_KINDS = ['payout', 'payout_failed', 'payout_reversed'];
const TOP_UP_ADJUSTMENTS: Record<string, string> = { top_up_refund: 'refund', top_up_dispute: 'dispute', top_up_dispute_won: 'dispute_won' };
/**
 * The ledger movements of a subscription invoice's charge (si) that went back to the card: its refunds
 * (refund:<charge>:<n>) and its dispute (dispute:<id>, and dispute-won:<id> when the platform won it).
 */
const SUBSCRIPTION_ADJUSTMENT = `((t.kind = 'subscription_refund' AND t.reference LIKE 'refund:' || si.charge_id || ':%')
  OR (t.kind IN ('subscription_dispute', 'subscription_dispute_won') AND t.reference IN ('dispute:' || si.dispute_id, 'dispute-won:' || si.dispute_id)))`;

export interface MonthRange {
  month: string;
  from: Date;
  to: Date;
}

const monthKey = (date: Date) => `${date.getUTCFullYear()}-${String(date.getUTCMonth() + 1).padStart(2, '0')}`;

/** `YYYY-MM` → its UTC bounds; a 400 naming `month` for anything else, or a month after the current one. */
export function parseMonth(value: string, now = new Date()): MonthRange {
  const match = MONTH.exec(value);
  if (!match) throw invalidParam('month', 'must be a calendar month as YYYY-MM (UTC), e.g. 2026-11');
  const year = Number(match[1]);
  const index = Number(match[2]) - 1;
  if (year < 2000) throw invalidParam('month', 'must be 2000-01 or later');
  if (value > monthKey(now)) throw invalidParam('month', `must not be after the current month (${monthKey(now)})`);
  return { month: value, from: new Date(Date.UTC(year, index, 1)), to: new Date(Date.UTC(year, index + 1, 1)) };
}

const num = (value: unknown) => Number(value ?? 0);
const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

interface Account {
  id: number;
  currency: string;
}

async function accountsOf(db: Queryable, userId: string, kinds: string[]): Promise<(Account & { kind: string })[]> {
  const { rows } = await db.query<{ id: string; currency: string; kind: string }>(
    'SELECT id, currency, kind FROM ledger_accounts WHERE user_id = $1 AND kind = ANY($2::text[]) ORDER BY currency, kind',
    [userId, kinds],
  );
  return rows.map((row) => ({ id: Number(row.id), currency: row.currency, kind: row.kind }));
}

/** The account's balance as its entries before `from` and before `to` sum it. */
async function balances(db: Queryable, accountId: number, range: MonthRange): Promise<{ opening: number; closing: number }> {
  const { rows } = await db.query<{ opening: string; closing: string }>(
    `SELECT coalesce(sum(amount_cents) FILTER (WHERE created_at < $2), 0) AS opening, coalesce(sum(amount_cents), 0) AS closing
     FROM ledger_entries WHERE account_id = $1 AND created_at < $3`,
    [accountId, range.from, range.to],
  );
  return { opening: num(rows[0]?.opening), closing: num(rows[0]?.closing) };
}

/** The months (YYYY-MM) in which any of these accounts has entries, by one index probe per month. */
async function monthsWithEntries(db: Queryable, accountIds: number[]): Promise<Set<string>> {
  const months = new Set<string>();
  for (const id of accountIds) {
    let after = new Date(0);
    for (;;) {
      const { rows } = await db.query<{ first: Date | null }>(
        'SELECT min(created_at) AS first FROM ledger_entries WHERE account_id = $1 AND created_at >= $2',
        [id, after],
      );
      const first = rows[0]?.first;
      if (!first) break;
      const at = new Date(first);
      months.add(monthKey(at));
      after = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
    }
  }
  return months;
}

interface EntryRow {
  transaction_id: string;
  kind: string;
  reference: string | null;
  description: string;
  created_at: Date;
  amount_cents: string;
}

/** One account's entries of the month other than call charges (those are summed per app), oldest first. */
async function entriesOfMonth(db: Queryable, accountId: number, range: MonthRange, exceptKinds: string[]): Promise<EntryRow[]> {
  const { rows } = await db.query<EntryRow>(
    `SELECT t.id AS transaction_id, t.kind, t.reference, t.description, e.created_at, e.amount_cents
     FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
     WHERE e.account_id = $1 AND e.created_at >= $2 AND e.created_at < $3 AND NOT (t.kind = ANY($4::text[]))
     ORDER BY e.created_at, e.id`,
    [accountId, range.from, range.to, exceptKinds],
  );
  return rows;
}

const other = (row: EntryRow): StatementOther => ({
  date: iso(row.created_at)!,
  kind: row.kind,
  description: row.description,
  amount_cents: num(row.amount_cents),
});

export function createStatementsService({
  db,
  stripe = null,
  log,
}: {
  db: Database;
  stripe?: StripeClient | null;
  log?: { warn(details: object, message: string): void };
}) {
  async function callerCurrency(userId: string, account: Account | null, currency: string, range: MonthRange): Promise<CallerStatementCurrency> {
    const block: CallerStatementCurrency = {
      currency,
      opening_balance_cents: null,
      closing_balance_cents: null,
      top_ups_cents: 0,
      refunds_cents: 0,
      disputes_cents: 0,
      spend_cents: 0,
      other_cents: 0,
      subscriptions_cents: 0,
      subscription_refunds_cents: 0,
      top_ups: [],
      adjustments: [],
      spend_by_app: [],
      subscriptions: [],
      other: [],
    };
    if (account) {
      const balance = await balances(db, account.id, range);
      block.opening_balance_cents = balance.opening;
      block.closing_balance_cents = balance.closing;
      const rows = await entriesOfMonth(db, account.id, range, ['call_charge']);
      const topUpIntents = rows.filter((row) => row.kind === 'credit_top_up' && row.reference?.startsWith('topup:')).map((row) => row.reference!.slice(6));
      const receipts = new Map<string, string | null>();
      if (topUpIntents.length > 0) {
        const found = await db.query<{ stripe_payment_intent_id: string; receipt_url: string | null }>(
          'SELECT stripe_payment_intent_id, receipt_url FROM credit_top_ups WHERE user_id = $1 AND stripe_payment_intent_id = ANY($2::text[])',
          [userId, topUpIntents],
        );
        for (const row of found.rows) {
          // A receipt Stripe did not give us when the top-up succeeded is asked for again now.
          if (!row.receipt_url && stripe) await tryRecordTopUpReceipt(db, stripe, { id: row.stripe_payment_intent_id }, log);
          const again = row.receipt_url
            ? row.receipt_url
            : ((
                await db.query<{ receipt_url: string | null }>('SELECT receipt_url FROM credit_top_ups WHERE stripe_payment_intent_id = $1', [
                  row.stripe_payment_intent_id,
                ])
              ).rows[0]?.receipt_url ?? null);
          receipts.set(row.stripe_payment_intent_id, again);
        }
      }
      for (const row of rows) {
        const amount = num(row.amount_cents);
        if (row.kind === 'credit_top_up') {
          const intent = row.reference?.startsWith('topup:') ? row.reference.slice(6) : null;
          block.top_ups_cents += amount;
          block.top_ups.push({
            date: iso(row.created_at)!,
            amount_cents: amount,
            payment_intent_id: intent,
            receipt_url: intent ? (receipts.get(intent) ?? null) : null,
          });
        } else if (TOP_UP_ADJUSTMENTS[row.kind]) {
          if (row.kind === 'top_up_refund') block.refunds_cents += amount;
          else block.disputes_cents += amount;
          block.adjustments.push({
            date: iso(row.created_at)!,
            kind: TOP_UP_ADJUSTMENTS[row.kind]!,
            description: row.description,
            amount_cents: amount,
            reference: row.reference,
          });
        } else {
          block.other_cents += amount;
          block.other.push(other(row));
        }
      }
      // Calls paid from these credits, per app: a call_charge transaction's calls are the invocations
      // that refer to it, all of one app (decision 0062).
      const spend = await db.query<{ slug: string | null; name: string | null; calls: string; amount: string }>(
        `SELECT ap.slug, ap.name, sum(x.calls) AS calls, -sum(x.amount) AS amount
         FROM (
           SELECT t.id, sum(e.amount_cents) AS amount, c.app_id, greatest(c.calls, 1) AS calls
           FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id AND t.kind = 'call_charge'
           CROSS JOIN LATERAL (SELECT (array_agg(i.app_id))[1] AS app_id, count(*) AS calls FROM invocations i WHERE i.ledger_transaction_id = t.id) c
           WHERE e.account_id = $1 AND e.created_at >= $2 AND e.created_at < $3
           GROUP BY t.id, c.app_id, c.calls
         ) x LEFT JOIN apps ap ON ap.id = x.app_id
         GROUP BY ap.id, ap.slug, ap.name ORDER BY amount DESC, ap.slug`,
        [account.id, range.from, range.to],
      );
      for (const row of spend.rows) {
        block.spend_cents += num(row.amount);
        block.spend_by_app.push({
          app_slug: row.slug ?? '',
          app_name: row.name ?? 'Unknown application',
          calls: num(row.calls),
          amount_cents: num(row.amount),
        });
      }
    }
    return block;
  }

  /** The caller's subscription invoices and their refunds in the month (paid by card: outside funding in the invoice's currency). */
  async function callerSubscriptions(userId: string, range: MonthRange) {
    const paid = await db.query<{
      invoice_id: string;
      period_start: Date | null;
      period_end: Date | null;
      created_at: Date;
      amount: string;
      currency: string;
      plan: string;
      slug: string;
      name: string;
    }>(
      `SELECT si.invoice_id, si.period_start, si.period_end, e.created_at, -e.amount_cents AS amount, a.currency, p.name AS plan, ap.slug, ap.name
       FROM subscription_invoices si
       JOIN subscriptions s ON s.id = si.subscription_id AND s.user_id = $1
       JOIN packages p ON p.id = s.package_id JOIN apps ap ON ap.id = s.app_id
       JOIN ledger_transactions t ON t.reference = 'invoice:' || si.invoice_id AND t.kind = 'subscription_payment'
       JOIN ledger_entries e ON e.transaction_id = t.id
       JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'outside_funding'
       WHERE e.created_at >= $2 AND e.created_at < $3 ORDER BY e.created_at, si.invoice_id`,
      [userId, range.from, range.to],
    );
    const refunds = await db.query<{
      created_at: Date;
      amount: string;
      currency: string;
      plan: string;
      slug: string;
      kind: string;
      reference: string;
      description: string;
    }>(
      `SELECT e.created_at, e.amount_cents AS amount, a.currency, p.name AS plan, ap.slug, t.kind, t.reference, t.description
       FROM subscription_invoices si
       JOIN subscriptions s ON s.id = si.subscription_id AND s.user_id = $1
       JOIN packages p ON p.id = s.package_id JOIN apps ap ON ap.id = s.app_id
       JOIN ledger_transactions t ON ${SUBSCRIPTION_ADJUSTMENT}
       JOIN ledger_entries e ON e.transaction_id = t.id
       JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'outside_funding'
       WHERE (si.charge_id IS NOT NULL OR si.dispute_id IS NOT NULL) AND e.created_at >= $2 AND e.created_at < $3 ORDER BY e.created_at, t.reference`,
      [userId, range.from, range.to],
    );
    return { paid: paid.rows, refunds: refunds.rows };
  }

  async function callerStatement(userId: string, range: MonthRange): Promise<CallerStatementCurrency[]> {
    const accounts = await accountsOf(db, userId, ['user_credits']);
    const subs = await callerSubscriptions(userId, range);
    const currencies = [...new Set([...accounts.map((a) => a.currency), ...subs.paid.map((r) => r.currency), ...subs.refunds.map((r) => r.currency)])].sort();
    const blocks: CallerStatementCurrency[] = [];
    for (const currency of currencies) {
      const block = await callerCurrency(userId, accounts.find((a) => a.currency === currency) ?? null, currency, range);
      for (const row of subs.paid.filter((r) => r.currency === currency)) {
        block.subscriptions_cents += num(row.amount);
        block.subscriptions.push({
          date: iso(row.created_at)!,
          app_slug: row.slug,
          app_name: row.name,
          plan: row.plan,
          amount_cents: num(row.amount),
          period_start: iso(row.period_start),
          period_end: iso(row.period_end),
          invoice_id: row.invoice_id,
        });
      }
      for (const row of subs.refunds.filter((r) => r.currency === currency)) {
        block.subscription_refunds_cents += num(row.amount);
        block.adjustments.push({
          date: iso(row.created_at)!,
          kind: row.kind,
          description: `${row.plan} on ${row.slug}: ${row.description}`,
          amount_cents: num(row.amount),
          reference: row.reference,
        });
      }
      blocks.push(block);
    }
    return blocks;
  }

  async function creatorStatement(userId: string, range: MonthRange): Promise<CreatorStatementCurrency[]> {
    const accounts = await accountsOf(db, userId, ['creator_earnings', 'payouts_in_transit']);
    // The money of the creator's apps' calls, by the entries of their ledger transactions (one per
    // batch, app, caller and description: decision 0062), each counted with the calls it carries.
    const calls = await db.query<{
      currency: string;
      slug: string;
      name: string;
      calls: string;
      gross: string;
      fee: string;
      model_cost: string;
      drawn: string;
      net: string;
    }>(
      `WITH txs AS (
         SELECT i.ledger_transaction_id AS id, ap.id AS app_id, ap.slug, ap.name, count(*) AS calls
         FROM apps ap JOIN invocations i ON i.app_id = ap.id
         WHERE ap.owner_id = $1 AND i.ledger_transaction_id IS NOT NULL
           AND i.created_at >= $2::timestamptz - interval '${SETTLEMENT_SLACK}' AND i.created_at < $3
         GROUP BY 1, 2, 3, 4
       ),
       moved AS (
         SELECT a.currency, x.app_id, x.slug, x.name, x.calls,
           coalesce(sum(-e.amount_cents) FILTER (WHERE a.kind = 'user_credits' AND a.user_id <> $1), 0) AS gross,
           coalesce(sum(e.amount_cents) FILTER (WHERE a.kind = 'platform_fees'), 0) AS fee,
           coalesce(sum(e.amount_cents) FILTER (WHERE a.kind = 'model_costs'), 0) AS model_cost,
           coalesce(sum(-e.amount_cents) FILTER (WHERE a.kind = 'user_credits' AND a.user_id = $1), 0) AS drawn,
           coalesce(sum(e.amount_cents) FILTER (WHERE a.kind = 'creator_earnings'), 0) AS net
         FROM txs x JOIN ledger_entries e ON e.transaction_id = x.id JOIN ledger_accounts a ON a.id = e.account_id
         WHERE e.created_at >= $2 AND e.created_at < $3
         GROUP BY x.id, a.currency, x.app_id, x.slug, x.name, x.calls
       )
       SELECT currency, slug, name, sum(calls) AS calls, sum(gross) AS gross, sum(fee) AS fee, sum(model_cost) AS model_cost,
         sum(drawn) AS drawn, sum(net) AS net
       FROM moved GROUP BY currency, app_id, slug, name ORDER BY currency, gross DESC, slug`,
      [userId, range.from, range.to],
    );
    // Refunds of their callers' subscription payments: the platform's (fees → outside funding), shown for information.
    const refunds = await db.query<{ created_at: Date; amount: string; currency: string; plan: string; slug: string; name: string; reference: string }>(
      `SELECT e.created_at, e.amount_cents AS amount, a.currency, p.name AS plan, ap.slug, ap.name, t.reference
       FROM subscription_invoices si
       JOIN subscriptions s ON s.id = si.subscription_id
       JOIN apps ap ON ap.id = s.app_id AND ap.owner_id = $1 JOIN packages p ON p.id = s.package_id
       JOIN ledger_transactions t ON ${SUBSCRIPTION_ADJUSTMENT}
       JOIN ledger_entries e ON e.transaction_id = t.id
       JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'outside_funding'
       WHERE (si.charge_id IS NOT NULL OR si.dispute_id IS NOT NULL) AND e.created_at >= $2 AND e.created_at < $3 ORDER BY e.created_at, t.reference`,
      [userId, range.from, range.to],
    );
    const currencies = [...new Set([...accounts.map((a) => a.currency), ...calls.rows.map((r) => r.currency), ...refunds.rows.map((r) => r.currency)])].sort();
    const blocks: CreatorStatementCurrency[] = [];
    for (const currency of currencies) {
      const block: CreatorStatementCurrency = {
        currency,
        opening_balance_cents: null,
        closing_balance_cents: null,
        gross_calls_cents: 0,
        gross_subscriptions_cents: 0,
        gross_cents: 0,
        fee_cents: 0,
        model_cost_cents: 0,
        model_cost_from_credits_cents: 0,
        net_cents: 0,
        refunds_seen_cents: 0,
        payouts_cents: 0,
        other_cents: 0,
        calls: [],
        subscriptions: [],
        refunds_seen: [],
        payouts: [],
        other: [],
      };
      for (const row of calls.rows.filter((r) => r.currency === currency)) {
        const line = {
          app_slug: row.slug,
          app_name: row.name,
          calls: num(row.calls),
          gross_cents: num(row.gross),
          fee_cents: num(row.fee),
          model_cost_cents: num(row.model_cost),
          model_cost_from_credits_cents: num(row.drawn),
          net_cents: num(row.net),
        };
        block.calls.push(line);
        block.gross_calls_cents += line.gross_cents;
        block.fee_cents += line.fee_cents;
        block.model_cost_cents += line.model_cost_cents;
        block.model_cost_from_credits_cents += line.model_cost_from_credits_cents;
        block.net_cents += line.net_cents;
      }
      const earnings = accounts.find((a) => a.kind === 'creator_earnings' && a.currency === currency);
      if (earnings) {
        const balance = await balances(db, earnings.id, range);
        block.opening_balance_cents = balance.opening;
        block.closing_balance_cents = balance.closing;
        const rows = await entriesOfMonth(db, earnings.id, range, ['call_charge']);
        const subscriptionTxs = rows.filter((row) => row.kind === 'subscription_payment').map((row) => row.transaction_id);
        const subscriptionDetails = new Map<
          string,
          { gross: number; fee: number; plan: string | null; slug: string | null; name: string | null; invoice: string | null }
        >();
        if (subscriptionTxs.length > 0) {
          const details = await db.query<{
            id: string;
            gross: string;
            fee: string;
            plan: string | null;
            slug: string | null;
            name: string | null;
            invoice_id: string | null;
          }>(
            `SELECT t.id,
               coalesce((SELECT -sum(e.amount_cents) FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'outside_funding' WHERE e.transaction_id = t.id), 0) AS gross,
               coalesce((SELECT sum(e.amount_cents) FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'platform_fees' WHERE e.transaction_id = t.id), 0) AS fee,
               p.name AS plan, ap.slug, ap.name, si.invoice_id
             FROM ledger_transactions t
             LEFT JOIN subscription_invoices si ON t.reference = 'invoice:' || si.invoice_id
             LEFT JOIN subscriptions s ON s.id = si.subscription_id LEFT JOIN packages p ON p.id = s.package_id LEFT JOIN apps ap ON ap.id = s.app_id
             WHERE t.id = ANY($1::uuid[])`,
            [subscriptionTxs],
          );
          for (const row of details.rows) {
            subscriptionDetails.set(row.id, {
              gross: num(row.gross),
              fee: num(row.fee),
              plan: row.plan,
              slug: row.slug,
              name: row.name,
              invoice: row.invoice_id,
            });
          }
        }
        for (const row of rows) {
          const amount = num(row.amount_cents);
          if (row.kind === 'subscription_payment') {
            const detail = subscriptionDetails.get(row.transaction_id);
            const gross = detail?.gross ?? amount;
            const fee = detail?.fee ?? 0;
            block.gross_subscriptions_cents += gross;
            block.fee_cents += fee;
            block.net_cents += amount;
            block.subscriptions.push({
              date: iso(row.created_at)!,
              app_slug: detail?.slug ?? '',
              app_name: detail?.name ?? row.description,
              plan: detail?.plan ?? '',
              gross_cents: gross,
              fee_cents: fee,
              net_cents: amount,
              invoice_id: detail?.invoice ?? (row.reference?.startsWith('invoice:') ? row.reference.slice(8) : null),
            });
          } else if (PAYOUT_KINDS.includes(row.kind)) {
            block.payouts_cents += amount;
            block.payouts.push({
              date: iso(row.created_at)!,
              kind: row.kind,
              description: row.description,
              amount_cents: Math.abs(amount),
              earnings_cents: amount,
            });
          } else {
            block.other_cents += amount;
            block.other.push(other(row));
          }
        }
      }
      // Stripe's confirmation of a payout moves it from in transit to paid; the earnings saw it leave already.
      const inTransit = accounts.find((a) => a.kind === 'payouts_in_transit' && a.currency === currency);
      if (inTransit) {
        const sent: StatementPayout[] = (await entriesOfMonth(db, inTransit.id, range, ['payout', 'payout_failed']))
          .filter((row) => row.kind === 'payout_sent')
          .map((row) => ({
            date: iso(row.created_at)!,
            kind: row.kind,
            description: row.description,
            amount_cents: -num(row.amount_cents),
            earnings_cents: 0,
          }));
        block.payouts = [...block.payouts, ...sent].sort((a, b) => a.date.localeCompare(b.date));
      }
      for (const row of refunds.rows.filter((r) => r.currency === currency)) {
        block.refunds_seen_cents += num(row.amount);
        block.refunds_seen.push({
          date: iso(row.created_at)!,
          app_slug: row.slug,
          app_name: row.name,
          plan: row.plan,
          amount_cents: num(row.amount),
          reference: row.reference,
        });
      }
      block.gross_cents = block.gross_calls_cents + block.gross_subscriptions_cents;
      blocks.push(block);
    }
    return blocks;
  }

  return {
    async listMonths(userId: string, role?: StatementRole, now = new Date()): Promise<StatementMonths> {
      const kinds =
        role === 'caller'
          ? ['user_credits']
          : role === 'creator'
            ? ['creator_earnings', 'payouts_in_transit']
            : ['user_credits', 'creator_earnings', 'payouts_in_transit'];
      const accounts = await accountsOf(db, userId, kinds);
      const months = await monthsWithEntries(
        db,
        accounts.map((a) => a.id),
      );
      if (role !== 'creator') {
        // Subscriptions paid by card leave no entry on the caller's accounts.
        const { rows } = await db.query<{ month: string }>(
          `SELECT DISTINCT to_char(t.created_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month
           FROM subscription_invoices si JOIN subscriptions s ON s.id = si.subscription_id AND s.user_id = $1
           JOIN ledger_transactions t ON t.reference = 'invoice:' || si.invoice_id`,
          [userId],
        );
        for (const row of rows) months.add(row.month);
      }
      const current = monthKey(now);
      months.add(current);
      return {
        current,
        months: [...months]
          .filter((m) => m <= current)
          .sort()
          .reverse(),
      };
    },

    async read(userId: string, month: string, role: StatementRole = 'caller', now = new Date()): Promise<Statement> {
      const range = parseMonth(month, now);
      const base = { month: range.month, role, from: range.from.toISOString(), to: range.to.toISOString() };
      return role === 'creator' ? { ...base, creator: await creatorStatement(userId, range) } : { ...base, caller: await callerStatement(userId, range) };
    },
  };
}

export type StatementsService = ReturnType<typeof createStatementsService>;
