-- Creators get paid (issue 23): Stripe Connect accounts, payouts as Stripe Transfers, and money
-- taken back when a top-up is refunded or disputed. Decision record 0031.

-- Two more ledger account kinds: a creator's payouts in transit (taken from their earnings, the
-- transfer not yet confirmed by Stripe) and the platform's creator payouts (money that left for
-- connected accounts). 'model_costs' (0019) stays.
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check
  CHECK (kind IN ('user_credits', 'creator_earnings', 'platform_fees', 'outside_funding', 'model_costs', 'payouts_in_transit', 'creator_payouts'));
INSERT INTO ledger_accounts (kind) VALUES ('creator_payouts');

-- The unnamed CHECKs of 0001 (found by their text, their generated names are not ours to rely on):
-- which kinds belong to a user, and credits never below zero.
DO $$
DECLARE c record;
BEGIN
  FOR c IN SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = 'ledger_accounts'::regclass AND contype = 'c' LOOP
    IF c.def LIKE '%user_id IS NOT NULL%' OR (c.def LIKE '%balance_cents >= 0%' AND c.def NOT LIKE '%held_cents%') THEN
      EXECUTE format('ALTER TABLE ledger_accounts DROP CONSTRAINT %I', c.conname);
    END IF;
  END LOOP;
END $$;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_user_kinds
  CHECK ((kind IN ('user_credits', 'creator_earnings', 'payouts_in_transit')) = (user_id IS NOT NULL));

-- A refund or a dispute may take back credits already spent, so a caller's credits may go below
-- zero, but only that way: any other movement that lowers the available credits (balance − held)
-- below zero is refused as before (SQLSTATE 23514, the code the charge path maps to 402). The
-- refund's transaction says so with SET LOCAL tollbooth.overdraft = 'on'. The trigger's WHEN runs
-- in C on every update; the function only when availability drops below zero.
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_available_nonnegative;
CREATE FUNCTION ledger_credits_no_overdraft() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(current_setting('tollbooth.overdraft', true), '') = 'on' THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'credits of ledger account % would go below zero', NEW.id USING ERRCODE = '23514';
END $$;
CREATE TRIGGER ledger_credits_no_overdraft BEFORE UPDATE ON ledger_accounts FOR EACH ROW
  WHEN (NEW.kind = 'user_credits' AND NEW.balance_cents - NEW.held_cents < 0
        AND NEW.balance_cents - NEW.held_cents < OLD.balance_cents - OLD.held_cents)
  EXECUTE FUNCTION ledger_credits_no_overdraft();

-- A creator's Stripe connected account and its state as Stripe last told it.
CREATE TABLE connect_accounts (
  user_id uuid PRIMARY KEY REFERENCES users (id),
  stripe_account_id text NOT NULL UNIQUE,
  details_submitted boolean NOT NULL DEFAULT false,
  charges_enabled boolean NOT NULL DEFAULT false,
  payouts_enabled boolean NOT NULL DEFAULT false,
  transfers_active boolean NOT NULL DEFAULT false,
  requirements_due jsonb NOT NULL DEFAULT '[]',
  disabled_reason text,
  -- `created` of the newest account event applied (seconds); an older event changes nothing.
  state_at bigint NOT NULL DEFAULT 0,
  -- How often available earnings go out on their own: weekly (default), daily or manual (Withdraw now only).
  schedule text NOT NULL DEFAULT 'weekly' CHECK (schedule IN ('weekly', 'daily', 'manual')),
  last_bank_payout_failure text,
  last_bank_payout_failure_at timestamptz,
  disconnected_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- One row per transfer to a creator. Its id is the Stripe Idempotency-Key and transfer_group, so a
-- retry (another process, after a crash) reaches the same transfer. At most one is sending per
-- creator at any time, whatever the number of processes.
CREATE TABLE payouts (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id),
  stripe_account_id text NOT NULL,
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  currency text NOT NULL CHECK (currency ~ '^[a-z]{3}$'),
  status text NOT NULL CHECK (status IN ('sending', 'paid', 'failed', 'reversed')),
  origin text NOT NULL CHECK (origin IN ('withdraw', 'schedule')),
  stripe_transfer_id text UNIQUE,
  amount_reversed_cents bigint NOT NULL DEFAULT 0 CHECK (amount_reversed_cents >= 0 AND amount_reversed_cents <= amount_cents),
  failure_reason text,
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX payouts_one_sending ON payouts (user_id) WHERE status = 'sending';
CREATE INDEX payouts_user_created ON payouts (user_id, created_at DESC);

-- Money taken back from a top-up by refunds (cumulative, as Stripe reports it); disputes are
-- found by their ledger references.
ALTER TABLE credit_top_ups ADD COLUMN refunded_cents bigint NOT NULL DEFAULT 0 CHECK (refunded_cents >= 0);
