-- The model bill (issue 22, decision 0025). Every answered call on the operator's provider keys
-- records what it cost upstream, in micro-dollars (1 µ$ = 1/10,000 cent), computed from the usage
-- the provider reported and the model's prices. The ledger stays in whole cents: the model cost a
-- creator's calls incur accumulates per creator in model_cost_meters, and each call posts the cents
-- by which the running total's cents (rounded up) grew, so over any number of calls the cents
-- posted are the exact total rounded up once, never a cent lost or created per call.

-- The platform's model bill: what calls on the operator's provider keys cost upstream.
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check
  CHECK (kind IN ('user_credits', 'creator_earnings', 'platform_fees', 'outside_funding', 'model_costs'));
INSERT INTO ledger_accounts (kind) VALUES ('model_costs');

-- Running total of the model cost of one creator's calls (their apps' calls and their own calls
-- and test runs), in micro-dollars; the cents posted so far are ceil(micros / 10000).
CREATE TABLE model_cost_meters (
  user_id uuid PRIMARY KEY REFERENCES users (id),
  micros bigint NOT NULL DEFAULT 0 CHECK (micros >= 0)
);

-- Per call: the model that answered, its provider, whose key (platform or the creator's own), the
-- model cost in micro-dollars and the platform fee in cents.
ALTER TABLE invocations ADD COLUMN model text NOT NULL DEFAULT '';
ALTER TABLE invocations ADD COLUMN provider text NOT NULL DEFAULT '';
ALTER TABLE invocations ADD COLUMN model_cost_micros bigint NOT NULL DEFAULT 0 CHECK (model_cost_micros >= 0);
ALTER TABLE invocations ADD COLUMN fee_cents bigint NOT NULL DEFAULT 0;
ALTER TABLE app_daily_stats ADD COLUMN model_cost_micros bigint NOT NULL DEFAULT 0;
ALTER TABLE app_daily_stats ADD COLUMN fee_cents bigint NOT NULL DEFAULT 0;

-- The operator's view: per UTC day, provider and model, what callers paid, fees and model cost
-- (calls and test runs), maintained by the same statements that record them.
CREATE TABLE platform_daily_model_stats (
  day date NOT NULL,
  provider text NOT NULL,
  model text NOT NULL,
  calls bigint NOT NULL DEFAULT 0,
  test_runs bigint NOT NULL DEFAULT 0,
  paid_cents bigint NOT NULL DEFAULT 0,
  fee_cents bigint NOT NULL DEFAULT 0,
  model_cost_micros bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (day, provider, model)
);

-- Test runs (the builder's and the detail page's Test Prompt): recorded apart from callers' calls.
CREATE TABLE test_runs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id),
  app_id uuid REFERENCES apps (id),
  model text NOT NULL,
  provider text NOT NULL,
  status text NOT NULL CHECK (status IN ('success', 'error')),
  error_type text NOT NULL DEFAULT '',
  input_tokens integer NOT NULL DEFAULT 0,
  output_tokens integer NOT NULL DEFAULT 0,
  model_cost_micros bigint NOT NULL DEFAULT 0,
  demo boolean NOT NULL DEFAULT false,
  latency_ms integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX test_runs_user_created ON test_runs (user_id, created_at DESC);
