-- Bring your own key (issue 22 item 6, decision 0032). A creator keeps at most one credential per
-- provider kind (an OpenAI-compatible base URL and key, an Anthropic key, a Gemini key), the key
-- encrypted at rest like workflow keys (crypto/secrets.ts). A prompt app calls its model on the
-- platform's keys ('platform') or on its owner's credential for the model's provider ('own').
CREATE TABLE provider_credentials (
  user_id uuid NOT NULL REFERENCES users (id),
  kind text NOT NULL CHECK (kind IN ('openai', 'anthropic', 'gemini')),
  -- Only for 'openai': the OpenAI-compatible server's base URL (up to the version segment).
  base_url text,
  api_key_encrypted text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, kind),
  CHECK ((kind = 'openai') = (base_url IS NOT NULL))
);

ALTER TABLE prompt_configs ADD COLUMN key_source text NOT NULL DEFAULT 'platform' CHECK (key_source IN ('platform', 'own'));

-- Every process caches its creators' decrypted credentials; a change anywhere makes each forget
-- that creator's (db/invalidation.ts, kind 'credentials').
CREATE FUNCTION tollbooth_notify_provider_credentials() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('tollbooth_invalidate', 'credentials:' || (CASE WHEN TG_OP = 'INSERT' THEN NEW.user_id ELSE OLD.user_id END)::text);
  RETURN NULL;
END $$;
CREATE TRIGGER provider_credentials_invalidate AFTER INSERT OR UPDATE OR DELETE ON provider_credentials
  FOR EACH ROW EXECUTE FUNCTION tollbooth_notify_provider_credentials();
