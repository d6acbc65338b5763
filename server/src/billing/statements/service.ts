// Monthly statements (issue 23 item 6, decision 0036): a caller's and a creator's month in UTC,
// every figure read from the ledger (entries by their created_at, in [first of the month, first of
// the next)), grouped by the currency of the ledger account and never added across currencies.
// The opening and closing balances are sums of the account's entries before each bound, so
// opening + the month's movements = closing holds by construction; the detail lines name what
// each movement was (a top-up and its receipt, a refund, an app's calls, a subscription invoice).
// The SQL is in queries.ts.
import type {
  CallerStatementCurrency,
  CreatorStatementCurrency,
  Statement,
  StatementMonths,
  StatementOther,
  StatementPayout,
  StatementRole,
} from '@tollbooth/contract';
import type { Database, Queryable } from '../../db/client.ts';
import { createReadRouter, DEFAULT_READ_TIMEOUT_MS, type Reader, type ReadRouter } from '../../db/reads.ts';
import { invalidParam } from '../../platform/errors.ts';
import type { StripeClient } from '../../providers/stripe/client.ts';
import {
  type Account,
  type EntryRow,
  type MonthRange,
  selectAccounts,
  selectBalances,
  selectCallsByApp,
  selectEntriesOfMonth,
  selectFirstEntryAt,
  selectInvoiceMonths,
  selectPaidInvoices,
  selectRefundsSeen,
  selectSpendByApp,
  selectSubscriptionAdjustments,
  selectSubscriptionPayments,
  selectTopUpReceipt,
  selectTopUpReceipts,
} from './queries.ts';
import { tryRecordTopUpReceipt } from './receipts.ts';

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;
const PAYOUT_KINDS = ['payout', 'payout_failed', 'payout_reversed'];
const TOP_UP_ADJUSTMENTS: Record<string, string> = { top_up_refund: 'refund', top_up_dispute: 'dispute', top_up_dispute_won: 'dispute_won' };

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

/** How long after its end a month is read from the replica: its last entries have long been replicated. */
const CLOSED_MONTH_SETTLED_MS = 86_400_000;

const num = (value: unknown) => Number(value ?? 0);
const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());
/** A statement line about a subscription invoice (paid, refunded or disputed): when, which app and plan, how much. */
const subscriptionLine = (row: { created_at: Date; slug: string; name: string; plan: string; amount: string }) => ({
  date: iso(row.created_at)!,
  app_slug: row.slug,
  app_name: row.name,
  plan: row.plan,
  amount_cents: num(row.amount),
});

/** The account's balance as its entries before `from` and before `to` sum it. */
async function balances(db: Queryable, accountId: number, range: MonthRange): Promise<{ opening: number; closing: number }> {
  const row = await selectBalances(db, accountId, range);
  return { opening: num(row?.opening), closing: num(row?.closing) };
}

/** The months (YYYY-MM) in which any of these accounts has entries, by one index probe per month. */
async function monthsWithEntries(db: Queryable, accountIds: number[]): Promise<Set<string>> {
  const months = new Set<string>();
  for (const id of accountIds) {
    let after = new Date(0);
    for (;;) {
      const first = await selectFirstEntryAt(db, id, after);
      if (!first) break;
      const at = new Date(first);
      months.add(monthKey(at));
      after = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
    }
  }
  return months;
}

const other = (row: EntryRow): StatementOther => ({
  date: iso(row.created_at)!,
  kind: row.kind,
  description: row.description,
  amount_cents: num(row.amount_cents),
});

export function createStatementsService({
  db,
  reads = createReadRouter({ primary: db, statementTimeoutMs: DEFAULT_READ_TIMEOUT_MS }),
  stripe = null,
  log,
}: {
  db: Database;
  /** Statement reads under the statement timeout; closed months from the replica (db/reads.ts). */
  reads?: ReadRouter;
  stripe?: StripeClient | null;
  log?: { warn(details: object, message: string): void };
}) {
  async function callerCurrency(q: Queryable, userId: string, account: Account | null, currency: string, range: MonthRange): Promise<CallerStatementCurrency> {
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
      const balance = await balances(q, account.id, range);
      block.opening_balance_cents = balance.opening;
      block.closing_balance_cents = balance.closing;
      const rows = await selectEntriesOfMonth(q, account.id, range, ['call_charge']);
      const topUpIntents = rows.filter((row) => row.kind === 'credit_top_up' && row.reference?.startsWith('topup:')).map((row) => row.reference!.slice(6));
      const receipts = new Map<string, string | null>();
      if (topUpIntents.length > 0) {
        const found = await selectTopUpReceipts(q, userId, topUpIntents);
        for (const row of found) {
          // A receipt Stripe did not give us when the top-up succeeded is asked for again now.
          if (!row.receipt_url && stripe) await tryRecordTopUpReceipt(db, stripe, { id: row.stripe_payment_intent_id }, log);
          const again = row.receipt_url ? row.receipt_url : await selectTopUpReceipt(db, row.stripe_payment_intent_id);
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
      // Calls paid from these credits, per app (decision 0062).
      const spend = await selectSpendByApp(q, account.id, range);
      for (const row of spend) {
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
  async function callerSubscriptions(q: Queryable, userId: string, range: MonthRange) {
    const paid = await selectPaidInvoices(q, userId, range);
    const refunds = await selectSubscriptionAdjustments(q, userId, range);
    return { paid, refunds };
  }

  async function callerStatement(q: Queryable, userId: string, range: MonthRange): Promise<CallerStatementCurrency[]> {
    const accounts = await selectAccounts(q, userId, ['user_credits']);
    const subs = await callerSubscriptions(q, userId, range);
    const currencies = [...new Set([...accounts.map((a) => a.currency), ...subs.paid.map((r) => r.currency), ...subs.refunds.map((r) => r.currency)])].sort();
    const blocks: CallerStatementCurrency[] = [];
    for (const currency of currencies) {
      const block = await callerCurrency(q, userId, accounts.find((a) => a.currency === currency) ?? null, currency, range);
      for (const row of subs.paid.filter((r) => r.currency === currency)) {
        block.subscriptions_cents += num(row.amount);
        block.subscriptions.push({
          ...subscriptionLine(row),
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

  async function creatorStatement(q: Queryable, userId: string, range: MonthRange): Promise<CreatorStatementCurrency[]> {
    const accounts = await selectAccounts(q, userId, ['creator_earnings', 'payouts_in_transit']);
    // The money of the creator's apps' calls, per currency and app (decision 0062).
    const calls = await selectCallsByApp(q, userId, range);
    // Refunds of their callers' subscription payments: the platform's (fees → outside funding), shown for information.
    const refunds = await selectRefundsSeen(q, userId, range);
    const currencies = [...new Set([...accounts.map((a) => a.currency), ...calls.map((r) => r.currency), ...refunds.map((r) => r.currency)])].sort();
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
        model_cost_micros: 0,
        model_cost_from_credits_cents: 0,
        margin_micros: 0,
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
      for (const row of calls.filter((r) => r.currency === currency)) {
        const line = {
          app_slug: row.slug,
          app_name: row.name,
          calls: num(row.calls),
          gross_cents: num(row.gross),
          fee_cents: num(row.fee),
          model_cost_cents: num(row.model_cost),
          model_cost_micros: num(row.model_cost_micros),
          model_cost_from_credits_cents: num(row.drawn),
          // Analytics' margin of the same calls: what they brought in, less the fee and their exact model cost.
          margin_micros: (num(row.gross) - num(row.fee)) * 10_000 - num(row.model_cost_micros),
          net_cents: num(row.net),
        };
        block.calls.push(line);
        block.gross_calls_cents += line.gross_cents;
        block.fee_cents += line.fee_cents;
        block.model_cost_cents += line.model_cost_cents;
        block.model_cost_micros += line.model_cost_micros;
        block.margin_micros += line.margin_micros;
        block.model_cost_from_credits_cents += line.model_cost_from_credits_cents;
        block.net_cents += line.net_cents;
      }
      const earnings = accounts.find((a) => a.kind === 'creator_earnings' && a.currency === currency);
      if (earnings) {
        const balance = await balances(q, earnings.id, range);
        block.opening_balance_cents = balance.opening;
        block.closing_balance_cents = balance.closing;
        const rows = await selectEntriesOfMonth(q, earnings.id, range, ['call_charge']);
        const subscriptionTxs = rows.filter((row) => row.kind === 'subscription_payment').map((row) => row.transaction_id);
        const subscriptionDetails = new Map<
          string,
          { gross: number; fee: number; plan: string | null; slug: string | null; name: string | null; invoice: string | null }
        >();
        if (subscriptionTxs.length > 0) {
          const details = await selectSubscriptionPayments(q, subscriptionTxs);
          for (const row of details) {
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
        const sent: StatementPayout[] = (await selectEntriesOfMonth(q, inTransit.id, range, ['payout', 'payout_failed']))
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
      for (const row of refunds.filter((r) => r.currency === currency)) {
        block.refunds_seen_cents += num(row.amount);
        block.refunds_seen.push({
          ...subscriptionLine(row),
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
      // Which months have entries changes with every entry: read where the entries are written.
      const q = reads.primary;
      const accounts = await selectAccounts(q, userId, kinds);
      const months = await monthsWithEntries(
        q,
        accounts.map((a) => a.id),
      );
      if (role !== 'creator') {
        // Subscriptions paid by card leave no entry on the caller's accounts.
        for (const month of await selectInvoiceMonths(q, userId)) months.add(month);
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

    async read(reader: Reader, month: string, role: StatementRole = 'caller', now = new Date()): Promise<Statement> {
      const userId = reader.id;
      const range = parseMonth(month, now);
      const base = { month: range.month, role, from: range.from.toISOString(), to: range.to.toISOString() };
      // A month closed a day ago or more no longer changes: the replica (once it has the reader's own last
      // change) reads it; the current month, and one just closed whose last entries may still be on their
      // way to the replica, from the primary. Either way under the statement timeout.
      const q = range.to.getTime() <= now.getTime() - CLOSED_MONTH_SETTLED_MS ? reads.as(reader) : reads.primary;
      return role === 'creator' ? { ...base, creator: await creatorStatement(q, userId, range) } : { ...base, caller: await callerStatement(q, userId, range) };
    },
  };
}

export type StatementsService = ReturnType<typeof createStatementsService>;
