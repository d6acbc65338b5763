-- Prompt configuration per prompt app: model settings, and numbered versions of the prompt text
-- and schemas of which exactly one is active (the gateway serves it).
CREATE TABLE prompt_configs (
  app_id uuid PRIMARY KEY REFERENCES apps (id),
  model text NOT NULL,
  temperature double precision NOT NULL CHECK (temperature BETWEEN 0 AND 2),
  max_tokens integer NOT NULL CHECK (max_tokens BETWEEN 1 AND 8192),
  top_p double precision NOT NULL CHECK (top_p BETWEEN 0 AND 1),
  frequency_penalty double precision NOT NULL CHECK (frequency_penalty BETWEEN -2 AND 2),
  presence_penalty double precision NOT NULL CHECK (presence_penalty BETWEEN -2 AND 2),
  active_version integer NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE prompt_versions (
  app_id uuid NOT NULL REFERENCES apps (id),
  version integer NOT NULL,
  system_prompt text NOT NULL,
  prompt_template text NOT NULL,
  input_schema jsonb NOT NULL,
  output_schema jsonb,
  changelog text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (app_id, version)
);
