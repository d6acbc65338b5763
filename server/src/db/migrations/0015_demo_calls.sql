-- Calls answered by the built-in demo model (no provider configured for the app's model) are never
-- charged: they are recorded with price 0 and marked here, so a demo answer can never be mistaken
-- for a paid one in the invocations. Every call recorded before this was a real or an unmarked one.
ALTER TABLE invocations ADD COLUMN demo boolean NOT NULL DEFAULT false;
