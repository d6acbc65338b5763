-- Users, creator profiles and the double-entry credits ledger.

CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  issuer text NOT NULL,
  subject text NOT NULL,
  email text NOT NULL DEFAULT '',
  username text NOT NULL DEFAULT '',
  first_name text NOT NULL DEFAULT '',
  last_name text NOT NULL DEFAULT '',
  display_name text NOT NULL DEFAULT '',
  is_active boolean NOT NULL DEFAULT true,
  date_joined timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (issuer, subject)
);

CREATE TABLE creators (
  user_id uuid PRIMARY KEY REFERENCES users (id),
  display_name text NOT NULL DEFAULT '',
  plan text NOT NULL DEFAULT 'free',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Every movement of money is one ledger transaction whose entries sum to zero.
-- Accounts: a user's spendable credits, a creator's earnings, the platform's fees, and
-- outside funding (the counter-account of grants, card top-ups and payouts).
CREATE TABLE ledger_accounts (
  id bigserial PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('user_credits', 'creator_earnings', 'platform_fees', 'outside_funding')),
  user_id uuid REFERENCES users (id),
  balance_cents bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((kind IN ('user_credits', 'creator_earnings')) = (user_id IS NOT NULL)),
  CHECK (kind <> 'user_credits' OR balance_cents >= 0)
);
CREATE UNIQUE INDEX ledger_accounts_user_kind ON ledger_accounts (kind, user_id) WHERE user_id IS NOT NULL;
CREATE UNIQUE INDEX ledger_accounts_system_kind ON ledger_accounts (kind) WHERE user_id IS NULL;
INSERT INTO ledger_accounts (kind) VALUES ('platform_fees'), ('outside_funding');

CREATE TABLE ledger_transactions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  kind text NOT NULL,
  -- A natural key that makes a movement happen at most once (e.g. signup:<user id>).
  reference text UNIQUE,
  description text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE ledger_entries (
  id bigserial PRIMARY KEY,
  transaction_id uuid NOT NULL REFERENCES ledger_transactions (id),
  account_id bigint NOT NULL REFERENCES ledger_accounts (id),
  amount_cents bigint NOT NULL CHECK (amount_cents <> 0),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_entries_account_created ON ledger_entries (account_id, created_at DESC, id DESC);
CREATE INDEX ledger_entries_transaction ON ledger_entries (transaction_id);

-- Checked at commit: a transaction whose entries do not sum to zero cannot be committed.
CREATE FUNCTION ledger_check_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (SELECT coalesce(sum(amount_cents), 0) FROM ledger_entries WHERE transaction_id = NEW.transaction_id) <> 0 THEN
    RAISE EXCEPTION 'ledger transaction % does not balance', NEW.transaction_id USING ERRCODE = '23514';
  END IF;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER ledger_entries_balanced AFTER INSERT ON ledger_entries
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_check_balanced();

-- Usernames are optional but unique, whatever their case.
CREATE UNIQUE INDEX users_username_unique ON users (lower(username)) WHERE username <> '';
