-- The embedded OpenID Connect provider: local accounts, the provider's stored artifacts
-- (sessions, grants, codes, refresh tokens, interactions) and its signing keys.

-- Local accounts. The id is the OIDC subject the API sees; email is unique whatever its case.
CREATE TABLE oidc_accounts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL,
  -- scrypt$N$r$p$salt$hash (salt and hash base64url).
  password_hash text NOT NULL,
  display_name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX oidc_accounts_email ON oidc_accounts (lower(email));

-- One row per oidc-provider model instance (Session, Grant, AuthorizationCode, RefreshToken,
-- Interaction, ...). The indexed columns are copies of payload fields the adapter looks up by.
CREATE TABLE oidc_payloads (
  model text NOT NULL,
  id text NOT NULL,
  payload jsonb NOT NULL,
  grant_id text,
  uid text,
  user_code text,
  account_id text,
  expires_at timestamptz,
  consumed_at timestamptz,
  PRIMARY KEY (model, id)
);
CREATE INDEX oidc_payloads_grant_id ON oidc_payloads (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX oidc_payloads_uid ON oidc_payloads (model, uid) WHERE uid IS NOT NULL;
CREATE INDEX oidc_payloads_user_code ON oidc_payloads (model, user_code) WHERE user_code IS NOT NULL;
CREATE INDEX oidc_payloads_account_id ON oidc_payloads (account_id) WHERE account_id IS NOT NULL;
CREATE INDEX oidc_payloads_expires_at ON oidc_payloads (expires_at) WHERE expires_at IS NOT NULL;

-- Token signing keys, generated once and shared by every process. The private JWK is encrypted
-- with a key derived from SECRET_KEY. (alg, generation) is unique so processes starting together
-- race on one slot and all keep the winner's key.
CREATE TABLE oidc_signing_keys (
  kid text PRIMARY KEY,
  alg text NOT NULL,
  generation integer NOT NULL,
  encrypted_jwk text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (alg, generation)
);
