-- Applications, their invocations and the analytics rollups kept as calls are recorded.

CREATE TABLE apps (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  owner_id uuid NOT NULL REFERENCES users (id),
  name text NOT NULL,
  -- Unique across the platform for ever: a deleted app keeps its slug so old links never point elsewhere.
  slug text NOT NULL UNIQUE,
  description text NOT NULL DEFAULT '',
  type text NOT NULL CHECK (type IN ('prompt', 'workflow')),
  interaction_mode text NOT NULL DEFAULT 'completion' CHECK (interaction_mode IN ('completion', 'chat')),
  visibility text NOT NULL DEFAULT 'private' CHECK (visibility IN ('private', 'public', 'embed')),
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'live', 'archived')),
  price_cents bigint NOT NULL DEFAULT 100 CHECK (price_cents >= 0),
  -- Non-secret provider settings (e.g. the Dify app id and base URL).
  provider_config jsonb NOT NULL DEFAULT '{}',
  -- The provider API key, AES-256-GCM sealed (never returned whole).
  provider_secret_sealed text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX apps_owner_created ON apps (owner_id, created_at DESC) WHERE deleted_at IS NULL;

-- Append-only record of every call, successful or not.
CREATE TABLE invocations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  app_id uuid NOT NULL REFERENCES apps (id),
  caller_id uuid REFERENCES users (id),
  api_key_id uuid,
  end_user text NOT NULL DEFAULT '',
  mode text NOT NULL DEFAULT 'completion',
  status text NOT NULL CHECK (status IN ('success', 'error')),
  error_type text NOT NULL DEFAULT '',
  latency_ms integer NOT NULL DEFAULT 0,
  input_tokens integer NOT NULL DEFAULT 0,
  output_tokens integer NOT NULL DEFAULT 0,
  price_cents bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX invocations_app_created ON invocations (app_id, created_at DESC, id DESC);

-- Per app per UTC day, updated in the transaction that records an invocation.
CREATE TABLE app_daily_stats (
  app_id uuid NOT NULL REFERENCES apps (id),
  day date NOT NULL,
  invocations bigint NOT NULL DEFAULT 0,
  successes bigint NOT NULL DEFAULT 0,
  errors bigint NOT NULL DEFAULT 0,
  latency_ms_sum bigint NOT NULL DEFAULT 0,
  input_tokens bigint NOT NULL DEFAULT 0,
  output_tokens bigint NOT NULL DEFAULT 0,
  revenue_cents bigint NOT NULL DEFAULT 0,
  last_used_at timestamptz,
  PRIMARY KEY (app_id, day)
);

CREATE TABLE app_daily_users (
  app_id uuid NOT NULL REFERENCES apps (id),
  day date NOT NULL,
  end_user text NOT NULL,
  PRIMARY KEY (app_id, day, end_user)
);
