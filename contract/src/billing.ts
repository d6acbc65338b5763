import { type Static, Type } from 'typebox';

export const BillingBalance = Type.Object({
  credits_cents: Type.Integer({ description: 'Spendable credit balance in integer cents' }),
  credits: Type.Number({ description: 'Spendable credit balance in dollars, for display' }),
  earnings_cents: Type.Integer({ description: "Earnings from other users' calls to your applications, in integer cents" }),
  earnings: Type.Number({ description: 'Earnings in dollars, for display' }),
});

export const LedgerAccountName = Type.Union([Type.Literal('credits'), Type.Literal('earnings')]);

export const LedgerEntry = Type.Object({
  id: Type.Integer(),
  transaction_id: Type.String({ format: 'uuid', description: 'Entries of one money movement share it' }),
  kind: Type.String({ description: 'What moved the money, e.g. signup_grant' }),
  description: Type.String(),
  account: LedgerAccountName,
  amount_cents: Type.Integer({ description: 'Positive: money in; negative: money out' }),
  created_at: Type.String({ format: 'date-time' }),
});

export const LedgerPage = Type.Object({
  results: Type.Array(LedgerEntry),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `before` for the next (older) page; null on the last page' }),
});

export const LedgerQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  before: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A next_cursor from a previous page' })),
});

export type BillingBalance = Static<typeof BillingBalance>;
export type LedgerEntry = Static<typeof LedgerEntry>;
export type LedgerPage = Static<typeof LedgerPage>;
export type LedgerQuery = Static<typeof LedgerQuery>;
