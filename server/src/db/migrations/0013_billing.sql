-- Billing with Stripe: plans (packages) per app, subscriptions with included calls, saved cards,
-- credit top-ups and the webhook events already applied. Money is integer cents.

CREATE TABLE packages (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  app_id uuid NOT NULL REFERENCES apps (id),
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  price_cents bigint NOT NULL CHECK (price_cents >= 0),
  currency text NOT NULL DEFAULT 'usd' CHECK (currency ~ '^[a-z]{3}$'),
  features jsonb NOT NULL DEFAULT '{}',
  included_calls integer NOT NULL DEFAULT 0 CHECK (included_calls >= 0),
  is_active boolean NOT NULL DEFAULT true,
  -- The Stripe product of this plan, and the price made for its current price (a price change makes a new one).
  stripe_product_id text,
  stripe_price_id text,
  stripe_price_cents bigint,
  stripe_price_currency text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX packages_app ON packages (app_id, created_at);

CREATE TABLE stripe_customers (
  user_id uuid PRIMARY KEY REFERENCES users (id),
  customer_id text NOT NULL UNIQUE
);

CREATE TABLE subscriptions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id),
  app_id uuid NOT NULL REFERENCES apps (id),
  package_id uuid NOT NULL REFERENCES packages (id),
  -- Stripe's statuses; a free plan is active or canceled.
  status text NOT NULL CHECK (status IN ('incomplete', 'incomplete_expired', 'trialing', 'active', 'past_due', 'canceled', 'unpaid', 'paused')),
  cancel_at_period_end boolean NOT NULL DEFAULT false,
  -- Copied from the plan when subscribing: a later price change applies to new subscriptions only.
  price_cents bigint NOT NULL CHECK (price_cents >= 0),
  currency text NOT NULL,
  included_calls integer NOT NULL CHECK (included_calls >= 0),
  -- Included calls used in the current period; the CHECK makes over-use impossible under any concurrency.
  included_used integer NOT NULL DEFAULT 0 CHECK (included_used >= 0 AND included_used <= included_calls),
  current_period_start timestamptz NOT NULL,
  current_period_end timestamptz NOT NULL,
  stripe_subscription_id text UNIQUE,
  -- `created` of the newest Stripe event applied, so an older event arriving late changes nothing.
  stripe_state_at bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX subscriptions_caller ON subscriptions (user_id, app_id);
CREATE INDEX subscriptions_package ON subscriptions (package_id);
-- One live subscription per user and plan.
CREATE UNIQUE INDEX subscriptions_one_live ON subscriptions (user_id, package_id)
  WHERE status IN ('incomplete', 'trialing', 'active', 'past_due', 'unpaid', 'paused');

CREATE TABLE payment_methods (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id),
  stripe_payment_method_id text NOT NULL UNIQUE,
  card_brand text NOT NULL,
  card_last4 text NOT NULL,
  card_exp_month integer NOT NULL,
  card_exp_year integer NOT NULL,
  is_default boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX payment_methods_user ON payment_methods (user_id, created_at);
CREATE UNIQUE INDEX payment_methods_one_default ON payment_methods (user_id) WHERE is_default;

CREATE TABLE credit_top_ups (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id),
  stripe_payment_intent_id text NOT NULL UNIQUE,
  amount_cents bigint NOT NULL CHECK (amount_cents >= 500),
  currency text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed', 'canceled')),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Webhook events applied, by Stripe event id: a redelivered event is acknowledged and not applied again.
CREATE TABLE stripe_events (
  id text PRIMARY KEY,
  type text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now()
);
