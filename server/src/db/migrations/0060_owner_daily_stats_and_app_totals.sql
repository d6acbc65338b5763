-- Issue 59: the creator dashboard and the catalog's popular sort read O(apps) or O(days) rows, never
-- apps × days (decision 0135).
--   owner_daily_stats  app_daily_stats summed per owner and UTC day over the owner's live apps: the
--                      dashboard's chart and totals (90 rows for 90 days, whatever the number of apps).
--   app_totals         per app, the figures of every call since the first (running totals) and, for the
--                      periods the dashboard offers (7, 30, 90 days ending as_of), the part of them from
--                      before each period (days <= as_of - k). A period's figures are the difference: two
--                      columns of one row per app. The catalog's popularity (successes of the last 30
--                      days) is successes - before30_successes, indexed so that its popular sort reads
--                      one page. Every app has its row from its creation.
-- Both follow app_daily_stats by triggers (app_totals per row, owner_daily_stats per statement), so
-- they are written in the statement, and the transaction, that writes the rollup, whoever writes it
-- (recordInvocation, the settlement, a subscription's revenue). app_totals rows whose as_of is not
-- today are rolled forward by analytics_roll_app_totals (the server calls it every 5 minutes and just
-- after midnight UTC); until then the reads fall back to summing app_daily_stats, so an answer never
-- depends on the roll having run.

CREATE TABLE owner_daily_stats (
  owner_id uuid NOT NULL REFERENCES users (id),
  day date NOT NULL,
  invocations bigint NOT NULL DEFAULT 0,
  successes bigint NOT NULL DEFAULT 0,
  errors bigint NOT NULL DEFAULT 0,
  rejections bigint NOT NULL DEFAULT 0,
  latency_ms_sum bigint NOT NULL DEFAULT 0,
  input_tokens bigint NOT NULL DEFAULT 0,
  output_tokens bigint NOT NULL DEFAULT 0,
  revenue_cents bigint NOT NULL DEFAULT 0,
  fee_cents bigint NOT NULL DEFAULT 0,
  model_cost_micros bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (owner_id, day)
);

CREATE TABLE app_totals (
  app_id uuid PRIMARY KEY REFERENCES apps (id) ON UPDATE CASCADE ON DELETE CASCADE,
  -- The day the before<k>_ columns are as of: they hold the days <= as_of - k.
  as_of date NOT NULL,
  last_used_at timestamptz,
  invocations bigint NOT NULL DEFAULT 0,
  successes bigint NOT NULL DEFAULT 0,
  errors bigint NOT NULL DEFAULT 0,
  rejections bigint NOT NULL DEFAULT 0,
  latency_ms_sum bigint NOT NULL DEFAULT 0,
  before7_invocations bigint NOT NULL DEFAULT 0,
  before7_successes bigint NOT NULL DEFAULT 0,
  before7_errors bigint NOT NULL DEFAULT 0,
  before7_rejections bigint NOT NULL DEFAULT 0,
  before7_latency_ms_sum bigint NOT NULL DEFAULT 0,
  before30_invocations bigint NOT NULL DEFAULT 0,
  before30_successes bigint NOT NULL DEFAULT 0,
  before30_errors bigint NOT NULL DEFAULT 0,
  before30_rejections bigint NOT NULL DEFAULT 0,
  before30_latency_ms_sum bigint NOT NULL DEFAULT 0,
  before90_invocations bigint NOT NULL DEFAULT 0,
  before90_successes bigint NOT NULL DEFAULT 0,
  before90_errors bigint NOT NULL DEFAULT 0,
  before90_rejections bigint NOT NULL DEFAULT 0,
  before90_latency_ms_sum bigint NOT NULL DEFAULT 0
);
CREATE INDEX app_totals_as_of ON app_totals (as_of);
-- The catalog's popular sort walks this index (successes of the last 30 days, most first) and stops at its page.
CREATE INDEX app_totals_popular ON app_totals ((successes - before30_successes) DESC, app_id);

-- Every app has its row from its creation (zeros), so the catalog can list apps from app_totals.
CREATE FUNCTION analytics_app_created_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO app_totals (app_id, as_of) VALUES (NEW.id, (now() AT TIME ZONE 'UTC')::date) ON CONFLICT (app_id) DO NOTHING;
  RETURN NULL;
END;
$$;

-- An app's running totals follow its rollup rows one by one: a statement writes those in (app, day)
-- order, so concurrent statements take the app_totals rows in the same order.
CREATE FUNCTION analytics_follow_app_daily_stats() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  today date := (now() AT TIME ZONE 'UTC')::date;
  d_invocations bigint := NEW.invocations - CASE WHEN TG_OP = 'UPDATE' THEN OLD.invocations ELSE 0 END;
  d_successes bigint := NEW.successes - CASE WHEN TG_OP = 'UPDATE' THEN OLD.successes ELSE 0 END;
  d_errors bigint := NEW.errors - CASE WHEN TG_OP = 'UPDATE' THEN OLD.errors ELSE 0 END;
  d_rejections bigint := NEW.rejections - CASE WHEN TG_OP = 'UPDATE' THEN OLD.rejections ELSE 0 END;
  d_latency_ms_sum bigint := NEW.latency_ms_sum - CASE WHEN TG_OP = 'UPDATE' THEN OLD.latency_ms_sum ELSE 0 END;
BEGIN
  IF d_invocations <> 0 OR d_successes <> 0 OR d_errors <> 0 OR d_rejections <> 0 OR d_latency_ms_sum <> 0 OR NEW.last_used_at IS DISTINCT FROM (CASE WHEN TG_OP = 'UPDATE' THEN OLD.last_used_at END) THEN
    INSERT INTO app_totals AS t (app_id, as_of, last_used_at, invocations, successes, errors, rejections, latency_ms_sum, before7_invocations, before7_successes, before7_errors, before7_rejections, before7_latency_ms_sum, before30_invocations, before30_successes, before30_errors, before30_rejections, before30_latency_ms_sum, before90_invocations, before90_successes, before90_errors, before90_rejections, before90_latency_ms_sum)
    VALUES (NEW.app_id, today, NEW.last_used_at, d_invocations, d_successes, d_errors, d_rejections, d_latency_ms_sum, CASE WHEN NEW.day <= today - 7 THEN d_invocations ELSE 0 END, CASE WHEN NEW.day <= today - 7 THEN d_successes ELSE 0 END, CASE WHEN NEW.day <= today - 7 THEN d_errors ELSE 0 END, CASE WHEN NEW.day <= today - 7 THEN d_rejections ELSE 0 END, CASE WHEN NEW.day <= today - 7 THEN d_latency_ms_sum ELSE 0 END, CASE WHEN NEW.day <= today - 30 THEN d_invocations ELSE 0 END, CASE WHEN NEW.day <= today - 30 THEN d_successes ELSE 0 END, CASE WHEN NEW.day <= today - 30 THEN d_errors ELSE 0 END, CASE WHEN NEW.day <= today - 30 THEN d_rejections ELSE 0 END, CASE WHEN NEW.day <= today - 30 THEN d_latency_ms_sum ELSE 0 END, CASE WHEN NEW.day <= today - 90 THEN d_invocations ELSE 0 END, CASE WHEN NEW.day <= today - 90 THEN d_successes ELSE 0 END, CASE WHEN NEW.day <= today - 90 THEN d_errors ELSE 0 END, CASE WHEN NEW.day <= today - 90 THEN d_rejections ELSE 0 END, CASE WHEN NEW.day <= today - 90 THEN d_latency_ms_sum ELSE 0 END)
    ON CONFLICT (app_id) DO UPDATE SET
      last_used_at = greatest(t.last_used_at, EXCLUDED.last_used_at),
      invocations = t.invocations + EXCLUDED.invocations,
      successes = t.successes + EXCLUDED.successes,
      errors = t.errors + EXCLUDED.errors,
      rejections = t.rejections + EXCLUDED.rejections,
      latency_ms_sum = t.latency_ms_sum + EXCLUDED.latency_ms_sum,
      before7_invocations = t.before7_invocations + CASE WHEN NEW.day <= t.as_of - 7 THEN EXCLUDED.invocations ELSE 0 END,
      before7_successes = t.before7_successes + CASE WHEN NEW.day <= t.as_of - 7 THEN EXCLUDED.successes ELSE 0 END,
      before7_errors = t.before7_errors + CASE WHEN NEW.day <= t.as_of - 7 THEN EXCLUDED.errors ELSE 0 END,
      before7_rejections = t.before7_rejections + CASE WHEN NEW.day <= t.as_of - 7 THEN EXCLUDED.rejections ELSE 0 END,
      before7_latency_ms_sum = t.before7_latency_ms_sum + CASE WHEN NEW.day <= t.as_of - 7 THEN EXCLUDED.latency_ms_sum ELSE 0 END,
      before30_invocations = t.before30_invocations + CASE WHEN NEW.day <= t.as_of - 30 THEN EXCLUDED.invocations ELSE 0 END,
      before30_successes = t.before30_successes + CASE WHEN NEW.day <= t.as_of - 30 THEN EXCLUDED.successes ELSE 0 END,
      before30_errors = t.before30_errors + CASE WHEN NEW.day <= t.as_of - 30 THEN EXCLUDED.errors ELSE 0 END,
      before30_rejections = t.before30_rejections + CASE WHEN NEW.day <= t.as_of - 30 THEN EXCLUDED.rejections ELSE 0 END,
      before30_latency_ms_sum = t.before30_latency_ms_sum + CASE WHEN NEW.day <= t.as_of - 30 THEN EXCLUDED.latency_ms_sum ELSE 0 END,
      before90_invocations = t.before90_invocations + CASE WHEN NEW.day <= t.as_of - 90 THEN EXCLUDED.invocations ELSE 0 END,
      before90_successes = t.before90_successes + CASE WHEN NEW.day <= t.as_of - 90 THEN EXCLUDED.successes ELSE 0 END,
      before90_errors = t.before90_errors + CASE WHEN NEW.day <= t.as_of - 90 THEN EXCLUDED.errors ELSE 0 END,
      before90_rejections = t.before90_rejections + CASE WHEN NEW.day <= t.as_of - 90 THEN EXCLUDED.rejections ELSE 0 END,
      before90_latency_ms_sum = t.before90_latency_ms_sum + CASE WHEN NEW.day <= t.as_of - 90 THEN EXCLUDED.latency_ms_sum ELSE 0 END;
  END IF;
  RETURN NULL;
END;
$$;

-- The owner's days follow a statement's rollup rows all at once, summed per owner and day and
-- written in (owner, day) order, so two statements over apps of the same owners cannot deadlock on
-- them whatever order their apps come in. FOR SHARE (taken first; the next statement's snapshot then
-- reads the apps) waits for a deletion of the app in progress and then skips the deleted app (as
-- analytics_count_owner_error of 0007 does), so figures can never be added after the deletion took
-- the app's figures out of its owner's.
CREATE FUNCTION analytics_owner_days_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  app uuid;
BEGIN
  -- One index lookup per app (a transition table has no statistics: a join could scan every app).
  FOR app IN SELECT DISTINCT changed.app_id FROM (SELECT app_id FROM new_rows) changed ORDER BY 1 LOOP
    PERFORM 1 FROM apps WHERE apps.id = app FOR SHARE;
  END LOOP;
  WITH changed AS (
    SELECT app_id, day, invocations, successes, errors, rejections, latency_ms_sum, input_tokens, output_tokens, revenue_cents, fee_cents, model_cost_micros FROM new_rows
  )
  INSERT INTO owner_daily_stats AS o (owner_id, day, invocations, successes, errors, rejections, latency_ms_sum, input_tokens, output_tokens, revenue_cents, fee_cents, model_cost_micros)
  SELECT a.owner_id, c.day, sum(c.invocations), sum(c.successes), sum(c.errors), sum(c.rejections), sum(c.latency_ms_sum), sum(c.input_tokens), sum(c.output_tokens), sum(c.revenue_cents), sum(c.fee_cents), sum(c.model_cost_micros)
  FROM changed c CROSS JOIN LATERAL (SELECT apps.owner_id FROM apps WHERE apps.id = c.app_id AND apps.deleted_at IS NULL OFFSET 0) a
  GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (owner_id, day) DO UPDATE SET
    invocations = o.invocations + EXCLUDED.invocations,
    successes = o.successes + EXCLUDED.successes,
    errors = o.errors + EXCLUDED.errors,
    rejections = o.rejections + EXCLUDED.rejections,
    latency_ms_sum = o.latency_ms_sum + EXCLUDED.latency_ms_sum,
    input_tokens = o.input_tokens + EXCLUDED.input_tokens,
    output_tokens = o.output_tokens + EXCLUDED.output_tokens,
    revenue_cents = o.revenue_cents + EXCLUDED.revenue_cents,
    fee_cents = o.fee_cents + EXCLUDED.fee_cents,
    model_cost_micros = o.model_cost_micros + EXCLUDED.model_cost_micros;
  RETURN NULL;
END;
$$;

CREATE FUNCTION analytics_owner_days_updated() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  app uuid;
BEGIN
  -- One index lookup per app (a transition table has no statistics: a join could scan every app).
  FOR app IN SELECT DISTINCT changed.app_id FROM (SELECT app_id FROM new_rows UNION SELECT app_id FROM old_rows) changed ORDER BY 1 LOOP
    PERFORM 1 FROM apps WHERE apps.id = app FOR SHARE;
  END LOOP;
  WITH changed AS (
    SELECT app_id, day, invocations, successes, errors, rejections, latency_ms_sum, input_tokens, output_tokens, revenue_cents, fee_cents, model_cost_micros FROM new_rows
    UNION ALL
    SELECT app_id, day, -invocations, -successes, -errors, -rejections, -latency_ms_sum, -input_tokens, -output_tokens, -revenue_cents, -fee_cents, -model_cost_micros FROM old_rows
  )
  INSERT INTO owner_daily_stats AS o (owner_id, day, invocations, successes, errors, rejections, latency_ms_sum, input_tokens, output_tokens, revenue_cents, fee_cents, model_cost_micros)
  SELECT a.owner_id, c.day, sum(c.invocations), sum(c.successes), sum(c.errors), sum(c.rejections), sum(c.latency_ms_sum), sum(c.input_tokens), sum(c.output_tokens), sum(c.revenue_cents), sum(c.fee_cents), sum(c.model_cost_micros)
  FROM changed c CROSS JOIN LATERAL (SELECT apps.owner_id FROM apps WHERE apps.id = c.app_id AND apps.deleted_at IS NULL OFFSET 0) a
  GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (owner_id, day) DO UPDATE SET
    invocations = o.invocations + EXCLUDED.invocations,
    successes = o.successes + EXCLUDED.successes,
    errors = o.errors + EXCLUDED.errors,
    rejections = o.rejections + EXCLUDED.rejections,
    latency_ms_sum = o.latency_ms_sum + EXCLUDED.latency_ms_sum,
    input_tokens = o.input_tokens + EXCLUDED.input_tokens,
    output_tokens = o.output_tokens + EXCLUDED.output_tokens,
    revenue_cents = o.revenue_cents + EXCLUDED.revenue_cents,
    fee_cents = o.fee_cents + EXCLUDED.fee_cents,
    model_cost_micros = o.model_cost_micros + EXCLUDED.model_cost_micros;
  RETURN NULL;
END;
$$;

-- Deleting an app (setting deleted_at) takes its figures out of its owner's days; restoring it puts them back.
CREATE FUNCTION analytics_app_stats_deleted_or_restored() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO owner_daily_stats AS o (owner_id, day, invocations, successes, errors, rejections, latency_ms_sum, input_tokens, output_tokens, revenue_cents, fee_cents, model_cost_micros)
  SELECT NEW.owner_id, s.day, CASE WHEN NEW.deleted_at IS NULL THEN s.invocations ELSE -s.invocations END, CASE WHEN NEW.deleted_at IS NULL THEN s.successes ELSE -s.successes END, CASE WHEN NEW.deleted_at IS NULL THEN s.errors ELSE -s.errors END, CASE WHEN NEW.deleted_at IS NULL THEN s.rejections ELSE -s.rejections END, CASE WHEN NEW.deleted_at IS NULL THEN s.latency_ms_sum ELSE -s.latency_ms_sum END, CASE WHEN NEW.deleted_at IS NULL THEN s.input_tokens ELSE -s.input_tokens END, CASE WHEN NEW.deleted_at IS NULL THEN s.output_tokens ELSE -s.output_tokens END, CASE WHEN NEW.deleted_at IS NULL THEN s.revenue_cents ELSE -s.revenue_cents END, CASE WHEN NEW.deleted_at IS NULL THEN s.fee_cents ELSE -s.fee_cents END, CASE WHEN NEW.deleted_at IS NULL THEN s.model_cost_micros ELSE -s.model_cost_micros END
  FROM app_daily_stats s WHERE s.app_id = NEW.id
  ON CONFLICT (owner_id, day) DO UPDATE SET
    invocations = o.invocations + EXCLUDED.invocations,
    successes = o.successes + EXCLUDED.successes,
    errors = o.errors + EXCLUDED.errors,
    rejections = o.rejections + EXCLUDED.rejections,
    latency_ms_sum = o.latency_ms_sum + EXCLUDED.latency_ms_sum,
    input_tokens = o.input_tokens + EXCLUDED.input_tokens,
    output_tokens = o.output_tokens + EXCLUDED.output_tokens,
    revenue_cents = o.revenue_cents + EXCLUDED.revenue_cents,
    fee_cents = o.fee_cents + EXCLUDED.fee_cents,
    model_cost_micros = o.model_cost_micros + EXCLUDED.model_cost_micros;
  RETURN NULL;
END;
$$;

CREATE TRIGGER apps_deleted_or_restored_stats AFTER UPDATE OF deleted_at ON apps
FOR EACH ROW WHEN ((OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL)) EXECUTE FUNCTION analytics_app_stats_deleted_or_restored();

-- Moves up to `batch` app_totals rows that are behind `target` forward to it: each before<k>_ column
-- gains the days that left its period, (as_of - k, target - k]; returns how many rows it moved. The
-- rows are locked first and the days read by a later statement, whose snapshot (READ COMMITTED, a
-- volatile function) includes every recording that held one of those rows; a recording that waits
-- for them meanwhile adds its day by the new as_of when it resumes. So no day counts twice or never.
CREATE FUNCTION analytics_roll_app_totals(target date, batch int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  ids uuid[];
BEGIN
  SELECT array_agg(app_id) INTO ids FROM (
    SELECT app_id FROM app_totals WHERE as_of < target ORDER BY app_id LIMIT batch FOR UPDATE
  ) locked;
  IF ids IS NULL THEN
    RETURN 0;
  END IF;
  UPDATE app_totals u SET
    as_of = target,
    before7_invocations = u.before7_invocations + r.before7_invocations,
    before7_successes = u.before7_successes + r.before7_successes,
    before7_errors = u.before7_errors + r.before7_errors,
    before7_rejections = u.before7_rejections + r.before7_rejections,
    before7_latency_ms_sum = u.before7_latency_ms_sum + r.before7_latency_ms_sum,
    before30_invocations = u.before30_invocations + r.before30_invocations,
    before30_successes = u.before30_successes + r.before30_successes,
    before30_errors = u.before30_errors + r.before30_errors,
    before30_rejections = u.before30_rejections + r.before30_rejections,
    before30_latency_ms_sum = u.before30_latency_ms_sum + r.before30_latency_ms_sum,
    before90_invocations = u.before90_invocations + r.before90_invocations,
    before90_successes = u.before90_successes + r.before90_successes,
    before90_errors = u.before90_errors + r.before90_errors,
    before90_rejections = u.before90_rejections + r.before90_rejections,
    before90_latency_ms_sum = u.before90_latency_ms_sum + r.before90_latency_ms_sum
  FROM (
    SELECT t.app_id,
      coalesce(sum(s.invocations) FILTER (WHERE s.day <= target - 7 AND s.day > t.as_of - 7), 0) AS before7_invocations,
      coalesce(sum(s.successes) FILTER (WHERE s.day <= target - 7 AND s.day > t.as_of - 7), 0) AS before7_successes,
      coalesce(sum(s.errors) FILTER (WHERE s.day <= target - 7 AND s.day > t.as_of - 7), 0) AS before7_errors,
      coalesce(sum(s.rejections) FILTER (WHERE s.day <= target - 7 AND s.day > t.as_of - 7), 0) AS before7_rejections,
      coalesce(sum(s.latency_ms_sum) FILTER (WHERE s.day <= target - 7 AND s.day > t.as_of - 7), 0) AS before7_latency_ms_sum,
      coalesce(sum(s.invocations) FILTER (WHERE s.day <= target - 30 AND s.day > t.as_of - 30), 0) AS before30_invocations,
      coalesce(sum(s.successes) FILTER (WHERE s.day <= target - 30 AND s.day > t.as_of - 30), 0) AS before30_successes,
      coalesce(sum(s.errors) FILTER (WHERE s.day <= target - 30 AND s.day > t.as_of - 30), 0) AS before30_errors,
      coalesce(sum(s.rejections) FILTER (WHERE s.day <= target - 30 AND s.day > t.as_of - 30), 0) AS before30_rejections,
      coalesce(sum(s.latency_ms_sum) FILTER (WHERE s.day <= target - 30 AND s.day > t.as_of - 30), 0) AS before30_latency_ms_sum,
      coalesce(sum(s.invocations) FILTER (WHERE s.day <= target - 90 AND s.day > t.as_of - 90), 0) AS before90_invocations,
      coalesce(sum(s.successes) FILTER (WHERE s.day <= target - 90 AND s.day > t.as_of - 90), 0) AS before90_successes,
      coalesce(sum(s.errors) FILTER (WHERE s.day <= target - 90 AND s.day > t.as_of - 90), 0) AS before90_errors,
      coalesce(sum(s.rejections) FILTER (WHERE s.day <= target - 90 AND s.day > t.as_of - 90), 0) AS before90_rejections,
      coalesce(sum(s.latency_ms_sum) FILTER (WHERE s.day <= target - 90 AND s.day > t.as_of - 90), 0) AS before90_latency_ms_sum
    FROM app_totals t LEFT JOIN app_daily_stats s ON s.app_id = t.app_id AND s.day > t.as_of - 90 AND s.day <= target - 7
    WHERE t.app_id = ANY(ids)
    GROUP BY t.app_id, t.as_of
  ) r
  WHERE u.app_id = r.app_id;
  RETURN cardinality(ids);
END;
$$;

-- Backfill from the rollups recorded before this migration, then follow them.
INSERT INTO owner_daily_stats (owner_id, day, invocations, successes, errors, rejections, latency_ms_sum, input_tokens, output_tokens, revenue_cents, fee_cents, model_cost_micros)
SELECT a.owner_id, s.day, sum(s.invocations), sum(s.successes), sum(s.errors), sum(s.rejections), sum(s.latency_ms_sum), sum(s.input_tokens), sum(s.output_tokens), sum(s.revenue_cents), sum(s.fee_cents), sum(s.model_cost_micros)
FROM app_daily_stats s JOIN apps a ON a.id = s.app_id
WHERE a.deleted_at IS NULL
GROUP BY 1, 2;

INSERT INTO app_totals (app_id, as_of, last_used_at, invocations, successes, errors, rejections, latency_ms_sum, before7_invocations, before7_successes, before7_errors, before7_rejections, before7_latency_ms_sum, before30_invocations, before30_successes, before30_errors, before30_rejections, before30_latency_ms_sum, before90_invocations, before90_successes, before90_errors, before90_rejections, before90_latency_ms_sum)
SELECT a.id, (now() AT TIME ZONE 'UTC')::date, max(s.last_used_at), coalesce(sum(s.invocations), 0), coalesce(sum(s.successes), 0), coalesce(sum(s.errors), 0), coalesce(sum(s.rejections), 0), coalesce(sum(s.latency_ms_sum), 0),
  coalesce(sum(s.invocations) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 7), 0),
  coalesce(sum(s.successes) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 7), 0),
  coalesce(sum(s.errors) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 7), 0),
  coalesce(sum(s.rejections) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 7), 0),
  coalesce(sum(s.latency_ms_sum) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 7), 0),
  coalesce(sum(s.invocations) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 30), 0),
  coalesce(sum(s.successes) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 30), 0),
  coalesce(sum(s.errors) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 30), 0),
  coalesce(sum(s.rejections) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 30), 0),
  coalesce(sum(s.latency_ms_sum) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 30), 0),
  coalesce(sum(s.invocations) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 90), 0),
  coalesce(sum(s.successes) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 90), 0),
  coalesce(sum(s.errors) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 90), 0),
  coalesce(sum(s.rejections) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 90), 0),
  coalesce(sum(s.latency_ms_sum) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 90), 0)
FROM apps a LEFT JOIN app_daily_stats s ON s.app_id = a.id
GROUP BY a.id;

CREATE TRIGGER apps_created_totals AFTER INSERT ON apps FOR EACH ROW EXECUTE FUNCTION analytics_app_created_totals();
CREATE TRIGGER app_daily_stats_follow AFTER INSERT OR UPDATE ON app_daily_stats
FOR EACH ROW EXECUTE FUNCTION analytics_follow_app_daily_stats();
CREATE TRIGGER app_daily_stats_owner_days_inserted AFTER INSERT ON app_daily_stats
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_owner_days_inserted();
CREATE TRIGGER app_daily_stats_owner_days_updated AFTER UPDATE ON app_daily_stats
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_owner_days_updated();
