-- Hardening (issue 10).

-- Refresh tokens, authorization codes and opaque tokens are stored by the SHA-256 of their id,
-- without the jti (the same secret) in the payload: see auth/oidc/postgres-adapter.ts.
UPDATE oidc_payloads
SET id = 'sha256:' || encode(sha256(convert_to(id, 'UTF8')), 'hex'), payload = payload - 'jti'
WHERE model IN ('RefreshToken', 'AuthorizationCode', 'AccessToken', 'ClientCredentials', 'DeviceCode', 'BackchannelAuthenticationRequest', 'PreAuthorizedCode')
  AND id NOT LIKE 'sha256:%';

-- A per-key cap on what one call may cost (402 price_above_limit above it).
ALTER TABLE api_keys ADD COLUMN max_price_cents bigint CHECK (max_price_cents >= 0);

-- Price increases take effect after a notice period: the new price waits in upcoming_price_*.
-- went_live_at: an app that was never live has no callers to notify, so its increases apply at once.
ALTER TABLE apps ADD COLUMN upcoming_price_cents bigint CHECK (upcoming_price_cents >= 0);
ALTER TABLE apps ADD COLUMN upcoming_price_at timestamptz;
ALTER TABLE apps ADD COLUMN went_live_at timestamptz;
UPDATE apps SET went_live_at = created_at WHERE status <> 'draft';

-- An Idempotency-Key claim lives until claim_expires_at unless its process renews it; a crashed
-- process's claims are then taken over by the next request with the key.
ALTER TABLE idempotency_records ADD COLUMN claim_expires_at timestamptz NOT NULL DEFAULT now();

-- Email verification of local accounts when SMTP_URL is set (sign-up credits wait for it).
ALTER TABLE oidc_accounts ADD COLUMN email_verified_at timestamptz;
ALTER TABLE oidc_accounts ADD COLUMN verification_token_hash text;
ALTER TABLE oidc_accounts ADD COLUMN verification_expires_at timestamptz;
CREATE INDEX oidc_accounts_verification ON oidc_accounts (verification_token_hash) WHERE verification_token_hash IS NOT NULL;
