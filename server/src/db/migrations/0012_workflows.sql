-- Workflow apps: the workflow configuration per app (its current state), numbered snapshots of it
-- (versions, rollback restores one as a new version), and the mapping of Tollbooth conversations
-- to the provider's own conversation ids.
--
-- The provider settings themselves stay where apps keep them (apps.provider_config for the
-- non-secret fields, apps.provider_secret_sealed for the API key, AES-256-GCM sealed), so the app
-- views and the workflow configuration never disagree. A version copies them, secret still sealed.

CREATE TABLE workflow_configs (
  app_id uuid PRIMARY KEY REFERENCES apps (id),
  provider text NOT NULL DEFAULT 'dify',
  timeout_seconds integer NOT NULL DEFAULT 300 CHECK (timeout_seconds BETWEEN 1 AND 600),
  -- Turns one conversation may have (see docs/decisions: workflow max_iterations).
  max_iterations integer NOT NULL DEFAULT 10 CHECK (max_iterations BETWEEN 1 AND 1000),
  -- On: each chat turn's query and answer are kept in the conversation log. Off: only call metadata.
  enable_logging boolean NOT NULL DEFAULT true,
  -- What the provider said about the app (name, description, mode, user_input_form), fetched at
  -- test-config and save time; null until the configuration was checked once.
  app_info jsonb,
  -- base_url and app_id the app_info was fetched for: a stale form is never used to reject inputs.
  app_info_source text,
  active_version integer NOT NULL DEFAULT 1,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE workflow_versions (
  app_id uuid NOT NULL REFERENCES apps (id),
  version integer NOT NULL,
  provider text NOT NULL,
  provider_config jsonb NOT NULL,
  provider_secret_sealed text,
  timeout_seconds integer NOT NULL,
  max_iterations integer NOT NULL,
  enable_logging boolean NOT NULL,
  app_info jsonb,
  app_info_source text,
  changelog text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (app_id, version)
);

-- A workflow app's conversation continues the provider's conversation of the same caller.
ALTER TABLE conversations ADD COLUMN upstream_conversation_id text;
ALTER TABLE conversations ADD COLUMN turns integer NOT NULL DEFAULT 0;
