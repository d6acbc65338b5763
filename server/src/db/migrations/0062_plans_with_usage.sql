-- Issue 60 item 5: a plan may include dollars of usage per period instead of (or beside) calls. A
-- subscriber's call to the app is charged against the plan at the app's rate (its most authorised,
-- the rest given back once its usage is known) until the period's usage is spent; then credits pay
-- (overage at the app's rate). usage_used_micros resets with included_used at each period start.
ALTER TABLE packages ADD COLUMN included_usage_micros bigint NOT NULL DEFAULT 0 CHECK (included_usage_micros >= 0);
-- A subscription keeps the usage its plan included when it began (as it keeps included_calls): a
-- later change to the plan applies to new subscriptions only.
ALTER TABLE subscriptions ADD COLUMN included_usage_micros bigint NOT NULL DEFAULT 0 CHECK (included_usage_micros >= 0);
ALTER TABLE subscriptions ADD COLUMN usage_used_micros bigint NOT NULL DEFAULT 0 CHECK (usage_used_micros >= 0);
