-- Signed webhooks and alerts (issue 62, decisions 0095-0097). An account's endpoints; the outbox of
-- events (written in the same transaction as the change it describes, so a rolled-back change has
-- none and a committed one is never lost); one delivery per event and endpoint (or mail), claimed by
-- any process with FOR UPDATE SKIP LOCKED; every attempt kept for the endpoint's delivery log.
CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  url text NOT NULL,
  description text NOT NULL DEFAULT '',
  events text[] NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  -- whsec_… sealed with SECRET_KEY (crypto/): shown once at creation, used to sign every delivery.
  secret_sealed text NOT NULL,
  -- Set when a delivery gave up after the retries (>= 24 h); cleared by the next success or by the owner.
  failing_since timestamptz,
  failing_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_user ON webhook_endpoints (user_id, created_at);

-- The outbox. user_id: the one recipient; audience_app_id instead: every subscriber and recent caller
-- of the app (price.changed), resolved when the event is fanned out. dedupe_key makes an event once
-- per crossing or window (credits.low, spend_cap.reached, key.rate_limited, statement.ready).
CREATE TABLE webhook_events (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid REFERENCES users(id) ON DELETE CASCADE,
  audience_app_id uuid REFERENCES apps(id) ON DELETE CASCADE,
  type text NOT NULL,
  data jsonb NOT NULL,
  dedupe_key text UNIQUE,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  fanned_out_at timestamptz,
  CHECK ((user_id IS NULL) <> (audience_app_id IS NULL))
);
CREATE INDEX webhook_events_pending ON webhook_events (created_at) WHERE fanned_out_at IS NULL;
CREATE INDEX webhook_events_user ON webhook_events (user_id, created_at DESC);

CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  event_id uuid NOT NULL REFERENCES webhook_events(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  -- null: the event by mail to the user
  endpoint_id uuid REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  -- Claiming a delivery moves this past the attempt's deadline: a process that died mid-send leaves it due again.
  next_attempt_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  first_attempt_at timestamptz,
  delivered_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE UNIQUE INDEX webhook_deliveries_once ON webhook_deliveries (event_id, coalesce(endpoint_id, '00000000-0000-0000-0000-000000000000'::uuid), user_id);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at DESC);

CREATE TABLE webhook_attempts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  endpoint_id uuid REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  attempted_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  ok boolean NOT NULL,
  status_code integer,
  latency_ms integer NOT NULL,
  response_snippet text NOT NULL DEFAULT '',
  error text,
  manual boolean NOT NULL DEFAULT false
);
CREATE INDEX webhook_attempts_endpoint ON webhook_attempts (endpoint_id, attempted_at DESC);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id);

-- What an account asked to be told of besides endpoints: thresholds, and the events it wants by mail.
CREATE TABLE webhook_alert_settings (
  user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  credits_low_cents bigint CHECK (credits_low_cents >= 0),
  credits_low_percent integer CHECK (credits_low_percent BETWEEN 1 AND 100),
  error_rate_percent integer CHECK (error_rate_percent BETWEEN 1 AND 100),
  mail_events text[] NOT NULL DEFAULT '{}',
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Whether a threshold is crossed now (subject: the app for app.error_rate, '' for credits.low): an
-- alert fires when it goes from false to true, once per crossing.
CREATE TABLE webhook_alert_state (
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  alert text NOT NULL,
  subject text NOT NULL DEFAULT '',
  crossed boolean NOT NULL,
  crossings integer NOT NULL DEFAULT 0,
  changed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, alert, subject)
);

-- A delivery the owner sent again: its next attempt is logged as theirs.
ALTER TABLE webhook_deliveries ADD COLUMN manual_pending boolean NOT NULL DEFAULT false;
