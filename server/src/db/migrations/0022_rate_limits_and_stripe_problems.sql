-- Rate-limit counters without Redis (issue 24): paid calls per key and per user, sign-in failures
-- and sign-ups are counted here when REDIS_URL is not set, so every process on one database
-- enforces one limit. One row per counter: a fixed window that ends at window_ends_at; the first
-- hit after it starts a new one. Losing the rows (a crash) only forgets recent counts, so the table
-- is not written to the WAL.
CREATE UNLOGGED TABLE rate_limit_counters (
  key text PRIMARY KEY,
  count integer NOT NULL,
  window_ends_at timestamptz NOT NULL
);
CREATE INDEX rate_limit_counters_window_ends_at ON rate_limit_counters (window_ends_at);

-- Stripe events that were correctly signed but do not match what Tollbooth expected (a top-up paid
-- with another amount or currency): nothing of them is applied, Stripe gets its 2xx (a 500 would
-- be retried for days), and the operator finds them here (and in the error log).
CREATE TABLE stripe_event_problems (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  event_id text NOT NULL UNIQUE,
  event_type text NOT NULL,
  object_id text,
  problem text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
