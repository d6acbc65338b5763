-- Issue 26: a creator can turn off the tools and response formats callers send through the
-- OpenAI-compatible endpoints (on by default: an app's own output schema still wins over them).
ALTER TABLE apps ADD COLUMN caller_tools boolean NOT NULL DEFAULT true;
