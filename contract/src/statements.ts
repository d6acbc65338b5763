// Monthly statements (issue 23 item 6): a caller's and a creator's month (UTC), read from the
// ledger. Amounts are integer minor units of `currency` (cents for usd, whole yen for jpy), one
// block per currency; amounts of different currencies are never added.
import { type Static, Type } from 'typebox';
import { NullableDateTime } from './common.ts';

export const StatementRole = Type.Union([Type.Literal('caller'), Type.Literal('creator')], { description: 'Whose statement: your spending, or your earnings' });
const Month = Type.String({ pattern: '^[0-9]{4}-(0[1-9]|1[0-2])$', description: 'A calendar month in UTC, YYYY-MM' });
const Minor = (description: string) => Type.Integer({ description });
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const Balance = (description: string) => Type.Union([Type.Integer(), Type.Null()], { description });

export const StatementMonthsQuery = Type.Object({ role: Type.Optional(StatementRole) });
export const StatementMonths = Type.Object({
  current: Month,
  months: Type.Array(Month, {
    description: 'The current month, then every earlier month with activity on your ledger accounts (or, for creators, on your apps), newest first',
  }),
});

export const StatementParams = Type.Object({ month: Type.String({ maxLength: 100, description: 'YYYY-MM (UTC)' }) });
export const StatementQuery = Type.Object({ role: Type.Optional(StatementRole) });

export const StatementTopUp = Type.Object({
  date: Type.String({ format: 'date-time' }),
  amount_cents: Minor('Credits added'),
  payment_intent_id: Nullable(Type.String()),
  receipt_url: Nullable(Type.String({ description: "Stripe's receipt of the Charge" })),
});
export const StatementAdjustment = Type.Object({
  date: Type.String({ format: 'date-time' }),
  kind: Type.String({ description: 'refund, dispute, dispute_won (top-ups); subscription_refund, subscription_dispute, subscription_dispute_won' }),
  description: Type.String(),
  amount_cents: Minor('Signed: credits taken back are negative'),
  reference: Nullable(Type.String()),
});
export const StatementAppSpend = Type.Object({
  app_slug: Type.String(),
  app_name: Type.String(),
  calls: Type.Integer({ description: 'Paid calls booked this month' }),
  amount_cents: Minor('Taken from your credits'),
});
export const StatementSubscriptionPayment = Type.Object({
  date: Type.String({ format: 'date-time' }),
  app_slug: Type.String(),
  app_name: Type.String(),
  plan: Type.String(),
  amount_cents: Minor('Paid by card'),
  period_start: NullableDateTime(),
  period_end: NullableDateTime(),
  invoice_id: Nullable(Type.String()),
});
export const StatementOther = Type.Object({
  date: Type.String({ format: 'date-time' }),
  kind: Type.String(),
  description: Type.String(),
  amount_cents: Minor('Signed effect on the balance'),
});

export const CallerStatementCurrency = Type.Object({
  currency: Type.String(),
  opening_balance_cents: Balance('Credits at the start of the month; null when you had no credits account in this currency'),
  closing_balance_cents: Balance('Credits at the end of the month (or now, for the current month)'),
  top_ups_cents: Minor('Card top-ups credited'),
  refunds_cents: Minor('Top-ups refunded: credits taken back (≤ 0)'),
  disputes_cents: Minor('Top-ups disputed, less disputes won (≤ 0)'),
  spend_cents: Minor('Calls paid from credits (≥ 0)'),
  other_cents: Minor('Everything else on your credits: sign-up grants, test runs'),
  subscriptions_cents: Minor('Subscriptions paid by card (not from credits)'),
  subscription_refunds_cents: Minor('Subscription payments refunded to your card or disputed (less disputes won)'),
  top_ups: Type.Array(StatementTopUp),
  adjustments: Type.Array(StatementAdjustment),
  spend_by_app: Type.Array(StatementAppSpend),
  subscriptions: Type.Array(StatementSubscriptionPayment),
  other: Type.Array(StatementOther),
});

export const StatementAppRevenue = Type.Object({
  app_slug: Type.String(),
  app_name: Type.String(),
  calls: Type.Integer(),
  gross_cents: Minor('What callers paid'),
  fee_cents: Minor('Platform fee'),
  model_cost_cents: Minor('Model cost as posted to the ledger (whole cents from a running total of micro-dollars)'),
  model_cost_micros: Type.Integer({
    description:
      "Model cost of these calls in micro-dollars (USD), exactly as analytics adds it: the sum of the calls' model_cost_micros. Costs below a cent are posted to the ledger a cent at a time as they add up (model_cost_cents)",
  }),
  model_cost_from_credits_cents: Minor('Model cost the price did not cover, paid from your credits'),
  margin_micros: Type.Integer({
    description: "The calls' margin in micro-dollars (USD): gross − fee − model_cost_micros, analytics' margin (total_net) of the same calls",
  }),
  net_cents: Minor('To your earnings: gross − fee − model cost + what your credits covered'),
});
export const StatementSubscriptionRevenue = Type.Object({
  date: Type.String({ format: 'date-time' }),
  app_slug: Type.String(),
  app_name: Type.String(),
  plan: Type.String(),
  gross_cents: Minor('What the subscriber paid'),
  fee_cents: Minor('Platform fee'),
  net_cents: Minor('To your earnings'),
  invoice_id: Nullable(Type.String()),
});
export const StatementRefundSeen = Type.Object({
  date: Type.String({ format: 'date-time' }),
  app_slug: Type.String(),
  app_name: Type.String(),
  plan: Type.String(),
  amount_cents: Minor('Refunded to the subscriber by the platform, or disputed (a won dispute is negative); your earnings keep it'),
  reference: Nullable(Type.String()),
});
export const StatementPayout = Type.Object({
  date: Type.String({ format: 'date-time' }),
  kind: Type.String({ description: 'payout (taken from earnings), payout_sent (Stripe confirmed the transfer), payout_failed, payout_reversed' }),
  description: Type.String(),
  amount_cents: Minor('Size of the movement'),
  earnings_cents: Minor('Signed effect on your earnings'),
});

export const CreatorStatementCurrency = Type.Object({
  currency: Type.String(),
  opening_balance_cents: Balance('Earnings at the start of the month; null when you had no earnings account in this currency'),
  closing_balance_cents: Balance('Earnings at the end of the month (or now)'),
  gross_calls_cents: Minor('Per-call revenue'),
  gross_subscriptions_cents: Minor('Subscription revenue'),
  gross_cents: Minor('Per-call and subscription revenue'),
  fee_cents: Minor('Platform fee'),
  model_cost_cents: Minor('Model cost as posted to the ledger'),
  model_cost_micros: Type.Integer({ description: "Model cost of the month's calls in micro-dollars (USD), as analytics adds it" }),
  model_cost_from_credits_cents: Minor('Model cost paid from your credits rather than your earnings'),
  margin_micros: Type.Integer({ description: "Margin of the month's calls in micro-dollars (USD): per-call gross − fee − model cost, as analytics shows it" }),
  net_cents: Minor('Net to your earnings'),
  refunds_seen_cents: Minor('Subscription payments refunded to or disputed by your callers, less disputes won (your earnings keep them)'),
  payouts_cents: Minor('Signed effect of payouts on your earnings (taken out, failed or reversed back)'),
  other_cents: Minor('Anything else on your earnings'),
  calls: Type.Array(StatementAppRevenue),
  subscriptions: Type.Array(StatementSubscriptionRevenue),
  refunds_seen: Type.Array(StatementRefundSeen),
  payouts: Type.Array(StatementPayout),
  other: Type.Array(StatementOther),
});

export const Statement = Type.Object({
  month: Month,
  role: StatementRole,
  from: Type.String({ format: 'date-time', description: 'Start of the month (UTC), included' }),
  to: Type.String({ format: 'date-time', description: 'Start of the next month (UTC), excluded' }),
  caller: Type.Optional(Type.Array(CallerStatementCurrency, { description: 'role=caller: one block per currency with activity or a balance' })),
  creator: Type.Optional(Type.Array(CreatorStatementCurrency, { description: 'role=creator: one block per currency with activity or a balance' })),
});

export type StatementRole = Static<typeof StatementRole>;
export type StatementMonths = Static<typeof StatementMonths>;
export type StatementTopUp = Static<typeof StatementTopUp>;
export type StatementAdjustment = Static<typeof StatementAdjustment>;
export type StatementAppSpend = Static<typeof StatementAppSpend>;
export type StatementSubscriptionPayment = Static<typeof StatementSubscriptionPayment>;
export type StatementOther = Static<typeof StatementOther>;
export type CallerStatementCurrency = Static<typeof CallerStatementCurrency>;
export type StatementAppRevenue = Static<typeof StatementAppRevenue>;
export type StatementSubscriptionRevenue = Static<typeof StatementSubscriptionRevenue>;
export type StatementRefundSeen = Static<typeof StatementRefundSeen>;
export type StatementPayout = Static<typeof StatementPayout>;
export type CreatorStatementCurrency = Static<typeof CreatorStatementCurrency>;
export type Statement = Static<typeof Statement>;
