-- With SMTP_URL set, sign-up answers every email alike (issue 24): the form's data waits here,
-- with its password already hashed, until the link mailed to the address is opened and the same
-- password entered; only then is the account created (verified). Several may wait for one email
-- (someone else may have typed it); creating the account removes them all. Only the SHA-256 of
-- the link's token is kept.
CREATE TABLE oidc_pending_sign_ups (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL,
  password_hash text NOT NULL,
  display_name text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oidc_pending_sign_ups_email ON oidc_pending_sign_ups (lower(email));
CREATE INDEX oidc_pending_sign_ups_expires ON oidc_pending_sign_ups (expires_at);
