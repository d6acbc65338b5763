// The operator's view (issue 22): what the platform took in and paid out, for the accounts whose
// verified email is in ADMIN_EMAILS. Anyone else gets 404 from every /api/operator/ endpoint.
// Money: cents where callers pay and fees are taken (integer cents, as stored), model cost in
// micro-dollars (1 µ$ = 1/10,000 cent, as stored), creators' net in micro-dollars (paid − fee −
// model cost, exact). Days are ISO days in UTC; a series has one entry per day, zero-filled.
import { type Static, Type } from 'typebox';

const Cents = (description: string) => Type.Integer({ description: `${description}, in cents` });
const Micros = (description: string) => Type.Integer({ description: `${description}, in micro-dollars (1/10,000 cent)` });
const Count = (description: string) => Type.Integer({ minimum: 0, description });

const MoneyFigures = {
  calls: Count('Answered calls on the platform models (demo answers and test runs apart)'),
  test_runs: Count('Test Prompt runs'),
  paid_cents: Cents('What callers paid'),
  fee_cents: Cents('Platform fees'),
  model_cost_micros: Micros('Model cost on the platform keys (calls and test runs)'),
  creators_net_micros: Micros("Creators' net: paid − fees − model cost"),
};

export const OperatorAccess = Type.Object({
  operator: Type.Literal(true),
  email: Type.String({ description: 'The verified email that ADMIN_EMAILS lists' }),
});

export const OperatorOverview = Type.Object({
  days: Type.Integer({ description: 'Length of the period in days' }),
  totals: Type.Object(MoneyFigures),
  daily: Type.Array(Type.Object({ date: Type.String({ description: 'ISO day (YYYY-MM-DD), UTC' }), ...MoneyFigures }), {
    description: 'One entry per UTC day of the period, oldest first, zero-filled',
  }),
  by_provider: Type.Array(Type.Object({ provider: Type.String(), ...MoneyFigures }), { description: 'Highest model cost first' }),
  by_model: Type.Array(Type.Object({ provider: Type.String(), model: Type.String(), ...MoneyFigures }), { description: 'Highest model cost first' }),
  other_currency_revenue: Type.Array(
    Type.Object({
      currency: Type.String({ description: 'ISO 4217, lower case; never usd' }),
      amount_minor: Type.Integer({ description: "In the currency's minor unit (whole dong, whole yen, cents of a euro)" }),
    }),
    {
      description:
        'Subscription payments of the period in other currencies than the US dollar, one entry per currency; never converted, never added to the figures above or to each other',
    },
  ),
});

export const OperatorTopCosts = Type.Object({
  days: Type.Integer(),
  accounts: Type.Array(
    Type.Object({
      user_id: Type.String(),
      email: Type.String(),
      display_name: Type.String(),
      apps: Count('Applications of the account with calls in the period'),
      calls: Count('Answered calls to its applications'),
      test_runs: Count('Its Test Prompt runs'),
      paid_cents: Cents('What callers paid its applications'),
      fee_cents: Cents('Platform fees on them'),
      model_cost_micros: Micros('Model cost of its applications’ calls and its test runs'),
      creators_net_micros: Micros('Its net: paid − fees − model cost'),
    }),
    { description: 'The accounts whose model cost was highest over the period, highest first' },
  ),
  apps: Type.Array(
    Type.Object({
      app_id: Type.String(),
      name: Type.String(),
      slug: Type.String(),
      status: Type.String(),
      deleted: Type.Boolean(),
      price_cents: Cents('Its price per call now'),
      owner_email: Type.String(),
      calls: Count('Answered calls'),
      paid_cents: Cents('What callers paid'),
      fee_cents: Cents('Platform fees'),
      model_cost_micros: Micros('Model cost of its calls'),
      creators_net_micros: Micros('Net of its owner: paid − fees − model cost'),
    }),
    { description: 'The applications whose model cost was highest over the period, highest first' },
  ),
});

export type OperatorAccess = Static<typeof OperatorAccess>;
export type OperatorOverview = Static<typeof OperatorOverview>;
export type OperatorTopCosts = Static<typeof OperatorTopCosts>;
