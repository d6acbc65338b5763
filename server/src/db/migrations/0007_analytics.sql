-- Analytics rollups beyond app_daily_stats and app_daily_users (0003), so that no dashboard ever
-- scans invocations and what a dashboard reads is bounded by apps × days or by distinct end
-- users, never by the number of calls:
--   app_daily_errors   failed calls per app per UTC day per error type;
--   owner_daily_errors the same per owner, over the owner's live apps (Top Errors of the dashboard);
--   app_end_users      the last UTC day each end user called each app;
--   owner_end_users    the last UTC day each end user called any app of an owner.
-- Analytics periods always end today, so "active in the last N days" is "last day >= start": a
-- unique-user count reads one index range instead of de-duplicating the per-day user sets
-- (about 500 rows per app per day at ten million calls).

CREATE TABLE app_daily_errors (
  app_id uuid NOT NULL REFERENCES apps (id),
  day date NOT NULL,
  error_type text NOT NULL,
  count bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (app_id, day, error_type)
);

CREATE TABLE owner_daily_errors (
  owner_id uuid NOT NULL REFERENCES users (id),
  day date NOT NULL,
  error_type text NOT NULL,
  count bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (owner_id, day, error_type)
);

CREATE TABLE app_end_users (
  app_id uuid NOT NULL REFERENCES apps (id),
  end_user text NOT NULL,
  last_day date NOT NULL,
  PRIMARY KEY (app_id, end_user)
);
CREATE INDEX app_end_users_last_day ON app_end_users (app_id, last_day);

CREATE TABLE owner_end_users (
  owner_id uuid NOT NULL REFERENCES users (id),
  end_user text NOT NULL,
  last_day date NOT NULL,
  PRIMARY KEY (owner_id, end_user)
);
CREATE INDEX owner_end_users_last_day ON owner_end_users (owner_id, last_day);

-- An owner's deleted apps (the dashboard checks whether one was used in the period); the index of
-- 0003 covers live apps only.
CREATE INDEX apps_owner_deleted ON apps (owner_id) WHERE deleted_at IS NOT NULL;

-- The last-day tables follow app_daily_users: a row is inserted there only on an end user's
-- first call of the day to an app (recordInvocation and the settlement batcher insert with
-- ON CONFLICT DO NOTHING), which is exactly when a last day can move. The trigger runs in the
-- recording statement, so the tables can never disagree with the per-day sets, and repeat calls
-- cost nothing extra.
CREATE FUNCTION analytics_remember_end_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO app_end_users AS seen (app_id, end_user, last_day) VALUES (NEW.app_id, NEW.end_user, NEW.day)
  ON CONFLICT (app_id, end_user) DO UPDATE SET last_day = EXCLUDED.last_day WHERE seen.last_day < EXCLUDED.last_day;
  INSERT INTO owner_end_users AS seen (owner_id, end_user, last_day)
  SELECT apps.owner_id, NEW.end_user, NEW.day FROM apps WHERE apps.id = NEW.app_id
  ON CONFLICT (owner_id, end_user) DO UPDATE SET last_day = EXCLUDED.last_day WHERE seen.last_day < EXCLUDED.last_day;
  RETURN NULL;
END;
$$;

CREATE TRIGGER app_daily_users_remember_end_user AFTER INSERT ON app_daily_users
FOR EACH ROW EXECUTE FUNCTION analytics_remember_end_user();

-- The owner's errors follow app_daily_errors (written by recordInvocation on failed calls only).
-- FOR SHARE waits for a deletion of the app in progress and then skips the deleted app, so an
-- error can never be added after the deletion took the app's errors away.
CREATE FUNCTION analytics_count_owner_error() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  app_owner uuid;
BEGIN
  SELECT apps.owner_id INTO app_owner FROM apps WHERE apps.id = NEW.app_id AND apps.deleted_at IS NULL FOR SHARE;
  IF app_owner IS NOT NULL THEN
    INSERT INTO owner_daily_errors AS total (owner_id, day, error_type, count)
    VALUES (app_owner, NEW.day, NEW.error_type, NEW.count - CASE WHEN TG_OP = 'UPDATE' THEN OLD.count ELSE 0 END)
    ON CONFLICT (owner_id, day, error_type) DO UPDATE SET count = total.count + EXCLUDED.count;
  END IF;
  RETURN NULL;
END;
$$;

-- Deleting an app (setting deleted_at) takes its errors out of its owner's totals; restoring it puts them back.
CREATE FUNCTION analytics_app_deleted_or_restored() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO owner_daily_errors AS total (owner_id, day, error_type, count)
  SELECT NEW.owner_id, e.day, e.error_type, CASE WHEN NEW.deleted_at IS NULL THEN e.count ELSE -e.count END
  FROM app_daily_errors e WHERE e.app_id = NEW.id
  ON CONFLICT (owner_id, day, error_type) DO UPDATE SET count = total.count + EXCLUDED.count;
  RETURN NULL;
END;
$$;

CREATE TRIGGER apps_deleted_or_restored_analytics AFTER UPDATE OF deleted_at ON apps
FOR EACH ROW WHEN ((OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL)) EXECUTE FUNCTION analytics_app_deleted_or_restored();

-- Backfill from what was recorded before this migration (days are UTC, as in recordInvocation).
INSERT INTO app_daily_errors (app_id, day, error_type, count)
SELECT app_id, (created_at AT TIME ZONE 'UTC')::date, error_type, count(*)
FROM invocations WHERE status = 'error'
GROUP BY 1, 2, 3;

INSERT INTO app_end_users (app_id, end_user, last_day)
SELECT app_id, end_user, max(day) FROM app_daily_users GROUP BY 1, 2;

INSERT INTO owner_end_users (owner_id, end_user, last_day)
SELECT apps.owner_id, users.end_user, max(users.day)
FROM app_daily_users users JOIN apps ON apps.id = users.app_id
GROUP BY 1, 2;

INSERT INTO owner_daily_errors (owner_id, day, error_type, count)
SELECT apps.owner_id, e.day, e.error_type, sum(e.count)
FROM app_daily_errors e JOIN apps ON apps.id = e.app_id
WHERE apps.deleted_at IS NULL
GROUP BY 1, 2, 3;

-- Created after the backfill above, which must not count twice.
CREATE TRIGGER app_daily_errors_count_owner_error AFTER INSERT OR UPDATE ON app_daily_errors
FOR EACH ROW EXECUTE FUNCTION analytics_count_owner_error();
