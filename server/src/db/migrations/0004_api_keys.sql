-- API keys for programmatic calls. Only the SHA-256 of a key is stored: the key itself is shown
-- once at creation and can never be read back. Keys are revoked, never deleted, so invocations
-- keep pointing at the key that made them.

CREATE TABLE api_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id),
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  -- The visible start of the key (tb_ + 8 characters), to tell keys apart in lists.
  prefix text NOT NULL,
  -- Hex SHA-256 of the whole key: what a presented key is looked up by.
  key_hash text NOT NULL UNIQUE CHECK (key_hash ~ '^[0-9a-f]{64}$'),
  monthly_spend_limit_cents bigint CHECK (monthly_spend_limit_cents >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_keys_user_created ON api_keys (user_id, created_at DESC, id DESC);

-- Spend this month per key reads only that key's recent invocations.
CREATE INDEX invocations_api_key_created ON invocations (api_key_id, created_at) WHERE api_key_id IS NOT NULL;
ALTER TABLE invocations ADD CONSTRAINT invocations_api_key_fk FOREIGN KEY (api_key_id) REFERENCES api_keys (id);
