-- Per-process caches on the paid call's path (API keys with their users, and which apps a user has
-- included-call subscriptions to) are told of every change here, by whatever process or statement
-- makes it: each change NOTIFYs channel tollbooth_invalidate at commit with '<kind>:<id>'.
-- db/invalidation.ts listens; a process that lost its listening connection trusts no cache until
-- it listens again.
CREATE FUNCTION tollbooth_notify_api_key() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('tollbooth_invalidate', 'key:' || OLD.id::text);
  RETURN NULL;
END $$;
-- last_used_at alone is not news: each process keeps its own idea of when it last wrote it.
CREATE TRIGGER api_keys_invalidate_delete AFTER DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION tollbooth_notify_api_key();
CREATE TRIGGER api_keys_invalidate_update AFTER UPDATE ON api_keys
  FOR EACH ROW WHEN ((OLD.user_id, OLD.key_hash, OLD.revoked_at, OLD.monthly_spend_limit_cents, OLD.max_price_cents)
    IS DISTINCT FROM (NEW.user_id, NEW.key_hash, NEW.revoked_at, NEW.monthly_spend_limit_cents, NEW.max_price_cents))
  EXECUTE FUNCTION tollbooth_notify_api_key();

CREATE FUNCTION tollbooth_notify_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('tollbooth_invalidate', 'user:' || OLD.id::text);
  RETURN NULL;
END $$;
CREATE TRIGGER users_invalidate AFTER UPDATE OR DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION tollbooth_notify_user();

-- Only a subscription's existence, owner, app or included calls matter to the cache (it decides
-- whether an included call can be looked for at all); covering a call (included_used) does not.
CREATE FUNCTION tollbooth_notify_subscription() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM pg_notify('tollbooth_invalidate', 'subscriber:' || OLD.user_id::text);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM pg_notify('tollbooth_invalidate', 'subscriber:' || NEW.user_id::text);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER subscriptions_invalidate_insert_delete AFTER INSERT OR DELETE ON subscriptions
  FOR EACH ROW EXECUTE FUNCTION tollbooth_notify_subscription();
CREATE TRIGGER subscriptions_invalidate_update AFTER UPDATE ON subscriptions
  FOR EACH ROW WHEN ((OLD.user_id, OLD.app_id, OLD.included_calls) IS DISTINCT FROM (NEW.user_id, NEW.app_id, NEW.included_calls))
  EXECUTE FUNCTION tollbooth_notify_subscription();
