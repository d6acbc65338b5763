// Creators get paid (issue 23): the Stripe connected account, earnings by state and the payouts.
// Amounts are integer minor units of `currency` (cents for usd).
import { type Static, Type } from 'typebox';
import { NullableDateTime } from './common.ts';

export const PayoutSchedule = Type.Union([Type.Literal('weekly'), Type.Literal('daily'), Type.Literal('manual')], {
  description: 'How often available earnings go out on their own; manual: only "Withdraw now"',
});

export const ConnectAccount = Type.Object({
  stripe_account_id: Type.String(),
  details_submitted: Type.Boolean(),
  payouts_enabled: Type.Boolean(),
  transfers_active: Type.Boolean({ description: 'The account can receive transfers (Stripe capability)' }),
  requirements_due: Type.Array(Type.String(), { description: 'What Stripe still asks for (requirements.currently_due)' }),
  disabled_reason: Type.Union([Type.String(), Type.Null()]),
  schedule: PayoutSchedule,
  last_bank_payout_failure: Type.Union([Type.String(), Type.Null()], { description: "Why the account's last payout to its bank failed (payout.failed)" }),
  last_bank_payout_failure_at: NullableDateTime(),
});

/** One currency's earnings: amounts are kept and paid per currency, never added across currencies. */
export const EarningsBalance = Type.Object({
  currency: Type.String({ description: 'ISO 4217, lower case; the amounts are in its minor unit (whole yen, whole dong, cents of a dollar)' }),
  pending_cents: Type.Integer({ description: 'Earned within the hold (PAYOUT_HOLD_DAYS); not yet withdrawable' }),
  available_cents: Type.Integer({ description: 'Withdrawable now' }),
  in_transit_cents: Type.Integer({ description: 'Taken from earnings for a transfer Stripe has not confirmed yet' }),
  paid_out_cents: Type.Integer({ description: 'Transferred to the connected account, less reversals' }),
  minimum_cents: Type.Integer({ description: 'The smallest payout in this currency (PAYOUT_MINIMUM_CENTS for usd, PAYOUT_MINIMUMS for others)' }),
});

export const Payout = Type.Object({
  id: Type.String({ format: 'uuid' }),
  amount_cents: Type.Integer(),
  currency: Type.String(),
  status: Type.Union([Type.Literal('sending'), Type.Literal('paid'), Type.Literal('failed'), Type.Literal('reversed')]),
  origin: Type.Union([Type.Literal('withdraw'), Type.Literal('schedule')]),
  stripe_transfer_id: Type.Union([Type.String(), Type.Null()]),
  amount_reversed_cents: Type.Integer(),
  failure_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it failed or was reversed, or why it is still being sent' }),
  created_at: Type.String({ format: 'date-time' }),
});

export const WithdrawResult = Type.Object(
  {
    ...Payout.properties,
    payouts: Type.Array(Payout, { description: 'Every payout this withdrawal started or found sending: one per currency (this one first)' }),
  },
  { description: 'The first payout (US dollars first), and all of them in `payouts`' },
);

export const PayoutsOverview = Type.Object({
  stripe_configured: Type.Boolean(),
  account: Type.Union([ConnectAccount, Type.Null()]),
  balances: Type.Array(EarningsBalance),
  hold_days: Type.Integer(),
  minimum_cents: Type.Integer({ description: 'The smallest US-dollar payout; each balance says its own' }),
  payouts: Type.Array(Payout, { description: 'The newest 20' }),
});

export const ConnectLink = Type.Object({ url: Type.String({ description: 'Stripe-hosted onboarding; single use, open it at once' }) });
export const PayoutSettings = Type.Object({ schedule: PayoutSchedule });

export type PayoutSchedule = Static<typeof PayoutSchedule>;
export type ConnectAccount = Static<typeof ConnectAccount>;
export type EarningsBalance = Static<typeof EarningsBalance>;
export type Payout = Static<typeof Payout>;
export type WithdrawResult = Static<typeof WithdrawResult>;
export type PayoutsOverview = Static<typeof PayoutsOverview>;
export type ConnectLink = Static<typeof ConnectLink>;
export type PayoutSettings = Static<typeof PayoutSettings>;
