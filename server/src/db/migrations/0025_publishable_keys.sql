-- Publishable keys (pk_…) for the embed widget (issue 28, decision 0030). They live in api_keys
-- beside the secret tb_ keys, so invocations, spend this month and revocation work the same for
-- both. A publishable key is public by design (it sits in the host page's source), so the whole
-- key is kept to fill in embed snippets later; it is still looked up by its hash. It is bound to:
-- the origins allowed to frame the widget, the apps it may call, a daily and a monthly spend cap
-- (monthly_spend_limit_cents, enforced by billing's hold as for secret keys), and a per-visitor
-- rate limit.
ALTER TABLE api_keys ADD COLUMN kind text NOT NULL DEFAULT 'secret' CHECK (kind IN ('secret', 'publishable'));
ALTER TABLE api_keys ADD COLUMN publishable_key text UNIQUE;
ALTER TABLE api_keys ADD COLUMN allowed_origins text[];
ALTER TABLE api_keys ADD COLUMN app_slugs text[];
ALTER TABLE api_keys ADD COLUMN daily_spend_limit_cents bigint CHECK (daily_spend_limit_cents >= 0);
ALTER TABLE api_keys ADD COLUMN visitor_rate_limit_per_minute integer CHECK (visitor_rate_limit_per_minute BETWEEN 1 AND 10000);
ALTER TABLE api_keys ADD CONSTRAINT api_keys_publishable_bindings CHECK (
  kind = 'secret' OR (
    publishable_key IS NOT NULL
    AND cardinality(allowed_origins) BETWEEN 1 AND 20
    AND cardinality(app_slugs) BETWEEN 1 AND 50
    AND daily_spend_limit_cents IS NOT NULL
    AND monthly_spend_limit_cents IS NOT NULL
    AND visitor_rate_limit_per_minute IS NOT NULL
  )
);
