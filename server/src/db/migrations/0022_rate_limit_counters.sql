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
