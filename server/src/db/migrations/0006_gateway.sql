-- The paid gateway: credit holds (reserve before the upstream call, settle or release after),
-- per-key monthly spend counters, idempotency records, chat conversations and uploaded files.

-- Credits on hold are still the user's (no money moved) but cannot be spent twice.
ALTER TABLE ledger_accounts ADD COLUMN held_cents bigint NOT NULL DEFAULT 0 CHECK (held_cents >= 0);
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_available_nonnegative CHECK (kind <> 'user_credits' OR balance_cents - held_cents >= 0);

CREATE TABLE credit_holds (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id bigint NOT NULL REFERENCES ledger_accounts (id),
  api_key_id uuid REFERENCES api_keys (id),
  -- First day of the UTC month whose key spend counter holds this amount too.
  spend_month date,
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  -- A hold whose process died is released by the sweeper after this.
  expires_at timestamptz NOT NULL
);
CREATE INDEX credit_holds_expires ON credit_holds (expires_at);

CREATE TABLE api_key_spend (
  api_key_id uuid NOT NULL REFERENCES api_keys (id),
  month date NOT NULL,
  spent_cents bigint NOT NULL DEFAULT 0 CHECK (spent_cents >= 0),
  held_cents bigint NOT NULL DEFAULT 0 CHECK (held_cents >= 0),
  PRIMARY KEY (api_key_id, month)
);

CREATE TABLE idempotency_records (
  user_id uuid NOT NULL REFERENCES users (id),
  key text NOT NULL,
  request_hash text NOT NULL,
  -- in_progress while the first request runs; done with the stored answer afterwards.
  state text NOT NULL CHECK (state IN ('in_progress', 'done')),
  response_status integer,
  response_body jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, key)
);
CREATE INDEX idempotency_records_created ON idempotency_records (created_at);

CREATE TABLE conversations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  app_id uuid NOT NULL REFERENCES apps (id),
  caller_id uuid NOT NULL REFERENCES users (id),
  end_user text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE conversation_messages (
  id bigserial PRIMARY KEY,
  conversation_id uuid NOT NULL REFERENCES conversations (id),
  role text NOT NULL CHECK (role IN ('user', 'assistant')),
  content text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX conversation_messages_conversation ON conversation_messages (conversation_id, id);

ALTER TABLE invocations ADD COLUMN conversation_id uuid;

CREATE TABLE uploaded_files (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id),
  app_id uuid NOT NULL REFERENCES apps (id),
  name text NOT NULL,
  size bigint NOT NULL,
  extension text NOT NULL,
  mime_type text NOT NULL,
  storage_path text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
