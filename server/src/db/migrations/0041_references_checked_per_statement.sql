-- The rows a paid call writes have their references checked once per statement, not once per row
-- (decision 0057). Five foreign keys ran a query of their own for every row the settlement inserts:
-- each ledger entry's transaction and account (with their currency, migration 0032) and each
-- invocation's app, caller and key. A paid call writes one invocation and two to four entries, so
-- that was seven to eleven lookups a call, about a sixth of PostgreSQL's CPU per settled call.
-- The same rules now hold through statement triggers that check a whole statement's rows in one
-- query each, with the same SQLSTATE (23503) and constraint names as before:
-- - an entry's transaction and account exist and have the entry's currency;
-- - an invocation's app, caller and key exist, and each is locked FOR KEY SHARE until the
--   transaction ends, as the foreign keys locked them;
-- - the rows referred to cannot go away or change key: ledger transactions and accounts are never
--   deleted, truncated or re-keyed (the ledger is append-only); an app, user or key that an
--   invocation refers to cannot be deleted or re-keyed;
-- - an entry or invocation cannot be pointed elsewhere by an update.

-- The ledger ----------------------------------------------------------------------------------
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_account_currency;
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_transaction_currency;
-- Only the foreign key needed (id, currency) unique: id is the primary key.
ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_id_currency;

DROP TRIGGER ledger_entries_balanced ON ledger_entries;
DROP FUNCTION ledger_check_balanced();

-- One call per statement that writes entries, and one query: their references, then their balance
-- (0040), each a scan of the statement's entries.
CREATE FUNCTION ledger_check_entries() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  missing_transaction text;
  missing_account text;
  unbalanced uuid;
BEGIN
  SELECT
    (SELECT format('(%s, %s)', n.transaction_id, n.currency)
     FROM (SELECT DISTINCT transaction_id, currency FROM written_entries) n
     WHERE NOT EXISTS (SELECT 1 FROM ledger_transactions t WHERE t.id = n.transaction_id AND t.currency = n.currency)
     LIMIT 1),
    (SELECT format('(%s, %s)', n.account_id, n.currency)
     FROM (SELECT DISTINCT account_id, currency FROM written_entries) n
     WHERE NOT EXISTS (SELECT 1 FROM ledger_accounts a WHERE a.id = n.account_id AND a.currency = n.currency)
     LIMIT 1),
    (SELECT n.transaction_id
     FROM (SELECT DISTINCT transaction_id FROM written_entries) n
     WHERE (SELECT sum(e.amount_cents) FROM ledger_entries e WHERE e.transaction_id = n.transaction_id) <> 0
     LIMIT 1)
  INTO missing_transaction, missing_account, unbalanced;
  IF missing_transaction IS NOT NULL THEN
    RAISE EXCEPTION 'insert or update on table "ledger_entries" violates foreign key constraint "ledger_entries_transaction_currency"'
      USING ERRCODE = '23503', CONSTRAINT = 'ledger_entries_transaction_currency', TABLE = 'ledger_entries',
            DETAIL = format('Key (transaction_id, currency)=%s is not present in table "ledger_transactions".', missing_transaction);
  END IF;
  IF missing_account IS NOT NULL THEN
    RAISE EXCEPTION 'insert or update on table "ledger_entries" violates foreign key constraint "ledger_entries_account_currency"'
      USING ERRCODE = '23503', CONSTRAINT = 'ledger_entries_account_currency', TABLE = 'ledger_entries',
            DETAIL = format('Key (account_id, currency)=%s is not present in table "ledger_accounts".', missing_account);
  END IF;
  IF unbalanced IS NOT NULL THEN
    RAISE EXCEPTION 'ledger transaction % does not balance', unbalanced USING ERRCODE = '23514';
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER ledger_entries_checked AFTER INSERT ON ledger_entries
  REFERENCING NEW TABLE AS written_entries FOR EACH STATEMENT EXECUTE FUNCTION ledger_check_entries();

-- Rows that entries refer to stay, with their id and currency; an entry keeps its references.
CREATE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% on table "%" is refused: the ledger is append-only, and its rows keep what they refer to', TG_OP, TG_TABLE_NAME
    USING ERRCODE = '23001', TABLE = TG_TABLE_NAME;
END $$;

CREATE TRIGGER ledger_transactions_stay BEFORE DELETE OR TRUNCATE ON ledger_transactions
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_transactions_keep_key BEFORE UPDATE OF id, currency ON ledger_transactions FOR EACH ROW
  WHEN (OLD.id IS DISTINCT FROM NEW.id OR OLD.currency IS DISTINCT FROM NEW.currency)
  EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_accounts_stay BEFORE DELETE OR TRUNCATE ON ledger_accounts
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_accounts_keep_key BEFORE UPDATE OF id, currency ON ledger_accounts FOR EACH ROW
  WHEN (OLD.id IS DISTINCT FROM NEW.id OR OLD.currency IS DISTINCT FROM NEW.currency)
  EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_entries_keep_references BEFORE UPDATE OF transaction_id, account_id, currency ON ledger_entries FOR EACH ROW
  WHEN (OLD.transaction_id IS DISTINCT FROM NEW.transaction_id OR OLD.account_id IS DISTINCT FROM NEW.account_id
        OR OLD.currency IS DISTINCT FROM NEW.currency)
  EXECUTE FUNCTION ledger_refuse_change();

-- Invocations ---------------------------------------------------------------------------------
ALTER TABLE invocations DROP CONSTRAINT invocations_app_id_fkey;
ALTER TABLE invocations DROP CONSTRAINT invocations_caller_id_fkey;
ALTER TABLE invocations DROP CONSTRAINT invocations_api_key_fk;

-- Each distinct app, caller and key of the statement's rows is looked up and locked once, in one
-- query. A row that another transaction is deleting is waited for, and is missing if that
-- transaction commits.
CREATE FUNCTION invocations_check_references() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  missing_apps bigint;
  missing_callers bigint;
  missing_keys bigint;
BEGIN
  SELECT
    (SELECT count(DISTINCT app_id) FROM recorded_invocations)
      - (SELECT count(*) FROM (SELECT 1 FROM apps WHERE id IN (SELECT app_id FROM recorded_invocations) FOR KEY SHARE) l),
    (SELECT count(DISTINCT caller_id) FROM recorded_invocations)
      - (SELECT count(*) FROM (SELECT 1 FROM users WHERE id IN (SELECT caller_id FROM recorded_invocations) FOR KEY SHARE) l),
    (SELECT count(DISTINCT api_key_id) FROM recorded_invocations)
      - (SELECT count(*) FROM (SELECT 1 FROM api_keys WHERE id IN (SELECT api_key_id FROM recorded_invocations) FOR KEY SHARE) l)
  INTO missing_apps, missing_callers, missing_keys;
  IF missing_apps > 0 THEN
    RAISE EXCEPTION 'insert or update on table "invocations" violates foreign key constraint "invocations_app_id_fkey"'
      USING ERRCODE = '23503', CONSTRAINT = 'invocations_app_id_fkey', TABLE = 'invocations';
  END IF;
  IF missing_callers > 0 THEN
    RAISE EXCEPTION 'insert or update on table "invocations" violates foreign key constraint "invocations_caller_id_fkey"'
      USING ERRCODE = '23503', CONSTRAINT = 'invocations_caller_id_fkey', TABLE = 'invocations';
  END IF;
  IF missing_keys > 0 THEN
    RAISE EXCEPTION 'insert or update on table "invocations" violates foreign key constraint "invocations_api_key_fk"'
      USING ERRCODE = '23503', CONSTRAINT = 'invocations_api_key_fk', TABLE = 'invocations';
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER invocations_references_checked AFTER INSERT ON invocations
  REFERENCING NEW TABLE AS recorded_invocations FOR EACH STATEMENT EXECUTE FUNCTION invocations_check_references();

CREATE FUNCTION invocations_refuse_repoint() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'update on table "invocations" is refused: an invocation keeps its app, caller and key'
    USING ERRCODE = '23001', TABLE = 'invocations';
END $$;
CREATE TRIGGER invocations_keep_references BEFORE UPDATE OF app_id, caller_id, api_key_id ON invocations FOR EACH ROW
  WHEN (OLD.app_id IS DISTINCT FROM NEW.app_id OR OLD.caller_id IS DISTINCT FROM NEW.caller_id
        OR OLD.api_key_id IS DISTINCT FROM NEW.api_key_id)
  EXECUTE FUNCTION invocations_refuse_repoint();

-- An app, user or key that an invocation refers to is not deleted, truncated or re-keyed. The
-- delete's own row lock waits for a transaction that locked the row for its invocations; this check
-- then reads with a new snapshot, which READ COMMITTED (every Tollbooth transaction) gives it. At a
-- stricter level the snapshot could miss that transaction's rows, so such a delete is refused.
CREATE FUNCTION invocations_referenced_check() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  referenced boolean;
  constraint_name text := CASE TG_TABLE_NAME WHEN 'apps' THEN 'invocations_app_id_fkey'
                                             WHEN 'users' THEN 'invocations_caller_id_fkey'
                                             ELSE 'invocations_api_key_fk' END;
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    referenced := EXISTS (SELECT 1 FROM invocations);
  ELSIF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'delete on table "%" runs at READ COMMITTED, where the check of its invocations sees them all', TG_TABLE_NAME
      USING ERRCODE = '0A000', TABLE = TG_TABLE_NAME;
  ELSIF TG_TABLE_NAME = 'apps' THEN
    referenced := EXISTS (SELECT 1 FROM gone g JOIN invocations i ON i.app_id = g.id);
  ELSIF TG_TABLE_NAME = 'users' THEN
    referenced := EXISTS (SELECT 1 FROM invocations i WHERE i.caller_id IN (SELECT id FROM gone));
  ELSE
    referenced := EXISTS (SELECT 1 FROM gone g JOIN invocations i ON i.api_key_id = g.id);
  END IF;
  IF referenced THEN
    RAISE EXCEPTION 'update or delete on table "%" violates foreign key constraint "%" on table "invocations"', TG_TABLE_NAME, constraint_name
      USING ERRCODE = '23503', CONSTRAINT = constraint_name, TABLE = 'invocations';
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION invocations_referenced_key_check() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM invocations i
             WHERE (TG_TABLE_NAME = 'apps' AND i.app_id = OLD.id)
                OR (TG_TABLE_NAME = 'users' AND i.caller_id = OLD.id)
                OR (TG_TABLE_NAME = 'api_keys' AND i.api_key_id = OLD.id)) THEN
    RAISE EXCEPTION 'update on table "%" is refused: invocations refer to its id', TG_TABLE_NAME
      USING ERRCODE = '23503', TABLE = 'invocations';
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER apps_invocations_deleted AFTER DELETE ON apps
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION invocations_referenced_check();
CREATE TRIGGER apps_invocations_truncated BEFORE TRUNCATE ON apps
  FOR EACH STATEMENT EXECUTE FUNCTION invocations_referenced_check();
CREATE TRIGGER apps_invocations_rekeyed BEFORE UPDATE OF id ON apps FOR EACH ROW
  WHEN (OLD.id IS DISTINCT FROM NEW.id) EXECUTE FUNCTION invocations_referenced_key_check();
CREATE TRIGGER users_invocations_deleted AFTER DELETE ON users
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION invocations_referenced_check();
CREATE TRIGGER users_invocations_truncated BEFORE TRUNCATE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION invocations_referenced_check();
CREATE TRIGGER users_invocations_rekeyed BEFORE UPDATE OF id ON users FOR EACH ROW
  WHEN (OLD.id IS DISTINCT FROM NEW.id) EXECUTE FUNCTION invocations_referenced_key_check();
CREATE TRIGGER api_keys_invocations_deleted AFTER DELETE ON api_keys
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION invocations_referenced_check();
CREATE TRIGGER api_keys_invocations_truncated BEFORE TRUNCATE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION invocations_referenced_check();
CREATE TRIGGER api_keys_invocations_rekeyed BEFORE UPDATE OF id ON api_keys FOR EACH ROW
  WHEN (OLD.id IS DISTINCT FROM NEW.id) EXECUTE FUNCTION invocations_referenced_key_check();
