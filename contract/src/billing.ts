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
  amount_cents: Type.Integer({ description: 'Positive: money in; negative: money out; in minor units of `currency`' }),
  currency: Type.String({ description: "The account's currency (ISO 4217, lower case): credits are usd, earnings are kept per currency" }),
  created_at: Type.String({ format: 'date-time' }),
});

export const LedgerPage = Type.Object({
  results: Type.Array(LedgerEntry),
  has_more: Type.Boolean({ description: 'True when an older page follows' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` (or `before`) for the next (older) page; null on the last page' }),
});

export const LedgerQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A next_cursor from a previous page' })),
  before: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The same as `cursor` (its first name)' })),
});

export type BillingBalance = Static<typeof BillingBalance>;
export type LedgerEntry = Static<typeof LedgerEntry>;
export type LedgerPage = Static<typeof LedgerPage>;
export type LedgerQuery = Static<typeof LedgerQuery>;

// Plans (packages), subscriptions, saved cards and top-ups (Stripe). Money is dollars in these
// payloads (price) with integer cents beside it where a client needs exactness (*_cents).

const Features = Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 500 }), {
  description: 'Feature name → value, shown as "key: value" lines',
});

export const Package = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  description: Type.String(),
  price: Type.Number({ description: 'Per month, in dollars (0 for a free plan)' }),
  price_cents: Type.Integer(),
  currency: Type.String({ description: 'ISO 4217 code, lower case' }),
  features: Features,
  included_calls: Type.Integer({ description: 'Calls per monthly billing period covered before credits are used' }),
  included_usage_micros: Type.Optional(
    Type.Integer({
      description:
        "Dollars of usage per billing period, in micro-dollars: calls are charged against it at the app's rate until it is spent, then from credits (overage at the app's rate)",
    }),
  ),
  is_active: Type.Boolean(),
  subscriber_count: Type.Optional(Type.Integer({ description: "Live subscriptions (the app owner's view only)" })),
});

export const PackageCreate = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    price: Type.Number({ minimum: 0, maximum: 100_000, description: 'Dollars, at most 2 decimals' }),
    currency: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$', description: 'ISO 4217 code; default usd' })),
    features: Type.Optional(Features),
    included_calls: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000 })),
    included_usage_micros: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 100_000_000_000, description: 'Dollars of usage per period, in micro-dollars (1,000,000 is $1)' }),
    ),
    is_active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export const PackageUpdate = Type.Partial(PackageCreate, { additionalProperties: false });

export const Subscription = Type.Object({
  id: Type.String({ format: 'uuid' }),
  package_id: Type.String({ format: 'uuid' }),
  package_name: Type.String(),
  status: Type.String({ description: 'active, canceled, or another Stripe status (incomplete, past_due, ...)' }),
  cancel_at_period_end: Type.Boolean(),
  current_period_end: Type.String({ format: 'date-time' }),
  days_remaining: Type.Integer({ minimum: 0 }),
  price: Type.Number(),
  currency: Type.String(),
  included_calls: Type.Integer(),
  included_calls_used: Type.Integer(),
  included_usage_micros: Type.Optional(Type.Integer({ description: "The plan's dollars of usage per period, in micro-dollars (0: none)" })),
  usage_used_micros: Type.Optional(Type.Integer({ description: 'Usage charged against the plan this period, in micro-dollars' })),
  client_secret: Type.Optional(
    Type.Union([Type.String(), Type.Null()], { description: 'Paid plans, on creation: confirm the first payment in the browser with it' }),
  ),
});

export const SubscriptionCreate = Type.Object(
  { package_id: Type.String({ format: 'uuid' }), payment_method_id: Type.Optional(Type.String({ format: 'uuid', description: 'A saved card to pay with' })) },
  { additionalProperties: false },
);
export const SubscriptionUpdate = Type.Object({ cancel_at_period_end: Type.Boolean() }, { additionalProperties: false });

export const PaymentMethod = Type.Object({
  id: Type.String({ format: 'uuid' }),
  card_brand: Type.String(),
  card_last4: Type.String(),
  card_exp_month: Type.Integer(),
  card_exp_year: Type.Integer(),
  is_default: Type.Boolean(),
});
export const PaymentMethodCreate = Type.Object(
  {
    setup_intent_id: Type.Optional(Type.String({ pattern: '^seti_', description: 'The confirmed SetupIntent whose card to save' })),
    payment_method_id: Type.Optional(Type.String({ pattern: '^pm_', description: 'Or the Stripe payment method itself' })),
  },
  { additionalProperties: false },
);
export const PaymentMethodUpdate = Type.Object({ is_default: Type.Literal(true) }, { additionalProperties: false });

export const PaymentIntentCreate = Type.Object(
  {
    amount: Type.Integer({ minimum: 0, description: 'Price × 100; 0 asks for a card-setup-only intent (SetupIntent)' }),
    currency: Type.String({ pattern: '^[a-z]{3}$', description: 'Lower case' }),
    package_id: Type.Optional(Type.String({ format: 'uuid', description: 'Required when amount > 0: the plan being subscribed to' })),
  },
  { additionalProperties: false },
);
export const PaymentIntentResponse = Type.Object({
  client_secret: Type.String(),
  subscription_id: Type.Optional(Type.String({ format: 'uuid' })),
});

export const TopUpCreate = Type.Object(
  { amount_cents: Type.Integer({ minimum: 500, maximum: 1_000_000, description: 'At least $5' }) },
  { additionalProperties: false },
);
export const TopUp = Type.Object({
  id: Type.String({ format: 'uuid' }),
  payment_intent_id: Type.String(),
  client_secret: Type.String(),
  amount_cents: Type.Integer(),
  status: Type.String(),
});
export const TopUpConfirm = Type.Object({ payment_intent_id: Type.String({ pattern: '^pi_' }) }, { additionalProperties: false });
export const TopUpResult = Type.Object({ status: Type.String(), credited: Type.Boolean(), credits_cents: Type.Integer() });

export type Package = Static<typeof Package>;
export type PackageCreate = Static<typeof PackageCreate>;
export type PackageUpdate = Static<typeof PackageUpdate>;
export type Subscription = Static<typeof Subscription>;
export type SubscriptionCreate = Static<typeof SubscriptionCreate>;
export type PaymentMethod = Static<typeof PaymentMethod>;
export type PaymentMethodCreate = Static<typeof PaymentMethodCreate>;
export type PaymentIntentCreate = Static<typeof PaymentIntentCreate>;
export type PaymentIntentResponse = Static<typeof PaymentIntentResponse>;
export type TopUp = Static<typeof TopUp>;
export type TopUpResult = Static<typeof TopUpResult>;
