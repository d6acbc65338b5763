-- Every call's outcome (design.md, analytics): success; failed (the app or its provider failed); or
-- rejected (the caller's own mistake: authentication, access, validation, credits, rate limit…).
-- Success rate is success / (success + failed), and rejected calls are shown apart, by type, so a
-- creator is not blamed for callers' mistakes. The outcome of a failed call follows from its error
-- type (server/src/gateway/outcomes.ts); the list below is that rule for every type recorded so
-- far (a test keeps the two equal).
--
-- After this migration, per app per UTC day:
--   app_daily_stats.invocations    every call (successes + errors + rejections);
--   app_daily_stats.errors         failed calls only;
--   app_daily_stats.rejections     rejected calls;
--   app_daily_stats.latency_ms_sum the answered and failed calls' latency (a refused call's few
--                                  milliseconds would flatter the response time);
--   app_daily_errors / owner_daily_errors: per error type, with its outcome.

ALTER TABLE invocations ADD COLUMN outcome text NOT NULL DEFAULT 'success' CHECK (outcome IN ('success', 'failed', 'rejected'));
ALTER TABLE app_daily_stats ADD COLUMN rejections bigint NOT NULL DEFAULT 0;
ALTER TABLE app_daily_errors ADD COLUMN outcome text NOT NULL DEFAULT 'failed' CHECK (outcome IN ('failed', 'rejected'));
ALTER TABLE owner_daily_errors ADD COLUMN outcome text NOT NULL DEFAULT 'failed' CHECK (outcome IN ('failed', 'rejected'));

CREATE FUNCTION tollbooth_rejected_error_type(error_type text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT error_type IN (
    'invalid_param', 'unauthorized', 'insufficient_credits', 'key_limit_exceeded', 'price_above_limit', 'forbidden',
    'app_unavailable', 'not_found', 'conflict', 'payload_too_large', 'unsupported_media_type', 'rate_limited',
    'method_not_allowed', 'not_chat_app', 'not_workflow_app', 'client_disconnected'
  )
$$;

-- Backfill: each failed call gets its outcome, and the day's totals move the rejected calls (and
-- their latency) out of errors, exactly, from the invocations themselves.
UPDATE invocations SET outcome = CASE WHEN tollbooth_rejected_error_type(error_type) THEN 'rejected' ELSE 'failed' END
WHERE status = 'error';

UPDATE app_daily_stats s SET
  errors = s.errors - r.count,
  rejections = r.count,
  latency_ms_sum = s.latency_ms_sum - r.latency_ms
FROM (
  SELECT app_id, (created_at AT TIME ZONE 'UTC')::date AS day, count(*) AS count, sum(latency_ms) AS latency_ms
  FROM invocations WHERE outcome = 'rejected' GROUP BY 1, 2
) r
WHERE s.app_id = r.app_id AND s.day = r.day;

UPDATE app_daily_errors SET outcome = 'rejected' WHERE tollbooth_rejected_error_type(error_type);
UPDATE owner_daily_errors SET outcome = 'rejected' WHERE tollbooth_rejected_error_type(error_type);

DROP FUNCTION tollbooth_rejected_error_type(text);

-- The owner's per-type totals carry the outcome of the app's (0007's functions, with the outcome).
CREATE OR REPLACE FUNCTION analytics_count_owner_error() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  app_owner uuid;
BEGIN
  SELECT apps.owner_id INTO app_owner FROM apps WHERE apps.id = NEW.app_id AND apps.deleted_at IS NULL FOR SHARE;
  IF app_owner IS NOT NULL THEN
    INSERT INTO owner_daily_errors AS total (owner_id, day, error_type, count, outcome)
    VALUES (app_owner, NEW.day, NEW.error_type, NEW.count - CASE WHEN TG_OP = 'UPDATE' THEN OLD.count ELSE 0 END, NEW.outcome)
    ON CONFLICT (owner_id, day, error_type) DO UPDATE SET count = total.count + EXCLUDED.count;
  END IF;
  RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION analytics_app_deleted_or_restored() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO owner_daily_errors AS total (owner_id, day, error_type, count, outcome)
  SELECT NEW.owner_id, e.day, e.error_type, CASE WHEN NEW.deleted_at IS NULL THEN e.count ELSE -e.count END, e.outcome
  FROM app_daily_errors e WHERE e.app_id = NEW.id
  ON CONFLICT (owner_id, day, error_type) DO UPDATE SET count = total.count + EXCLUDED.count;
  RETURN NULL;
END;
$$;
