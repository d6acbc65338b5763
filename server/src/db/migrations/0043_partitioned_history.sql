-- The tables that grow with every call are partitioned by time (issue 59, decision 0105): invocations
-- (one row per call) and test_runs (one per builder's test). Each is a partitioned table over
-- months of created_at; the table as it was becomes its first partition, "<table>_before_partitioning",
-- covering everything before a cut-over time, so no row is copied. A default partition catches a row
-- no month partition holds yet (the server creates them ahead: history_keep_partitions, run at start
-- and daily), so recording a call never fails for want of one. RETENTION_DAYS drops whole partitions
-- that ended before it (history_drop_partitions); rollups, ledger and statements are other tables.
--
-- Attaching the old table is instant when it already has a valid CHECK (created_at < cut-over) and
-- a unique index on (id, created_at): migrate.ts adds both on PostgreSQL before this transaction,
-- without blocking writes (NOT VALID, then VALIDATE; CREATE INDEX CONCURRENTLY). On a database where
-- they are missing (embedded, a new one) they are made here, inside the transaction.
--
-- A partitioned table's primary key holds its partition key: (id, created_at). A paid call's
-- invocation id and time are fixed before it is settled (the journal keeps both), so a second
-- settlement of one call still meets the same key.

CREATE TABLE history_partitions (
  name text PRIMARY KEY,
  parent text NOT NULL,
  starts timestamptz,            -- NULL: from the beginning of time (the table as it was)
  ends timestamptz NOT NULL
);

-- Month partitions of `parent` from the last one's end until `until` (UTC months; the first may be
-- shorter, from the cut-over). Several processes may call it together: one makes each month.
CREATE FUNCTION history_keep_partitions(parent text, until timestamptz) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  upper_bound timestamptz;
  next_bound timestamptz;
  partition_name text;
  made integer := 0;
BEGIN
  PERFORM pg_advisory_xact_lock(7243059, hashtext(parent));
  SELECT max(ends) INTO upper_bound FROM history_partitions h WHERE h.parent = history_keep_partitions.parent;
  IF upper_bound IS NULL THEN
    RAISE EXCEPTION '% is not partitioned by history_partitions', parent;
  END IF;
  WHILE upper_bound < until LOOP
    next_bound := (date_trunc('month', upper_bound AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';
    partition_name := parent || '_p' || to_char(upper_bound AT TIME ZONE 'UTC', 'YYYYMMDD');
    EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)', partition_name, parent, upper_bound, next_bound);
    INSERT INTO history_partitions (name, parent, starts, ends) VALUES (partition_name, parent, upper_bound, next_bound);
    upper_bound := next_bound;
    made := made + 1;
  END LOOP;
  RETURN made;
END $$;

-- Drops the partitions of `parent` whose every row is older than `before`; returns their names.
CREATE FUNCTION history_drop_partitions(parent text, before timestamptz) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  partition_name text;
BEGIN
  PERFORM pg_advisory_xact_lock(7243059, hashtext(parent));
  FOR partition_name IN
    SELECT h.name FROM history_partitions h WHERE h.parent = history_drop_partitions.parent AND h.ends <= before ORDER BY h.ends
  LOOP
    EXECUTE format('DROP TABLE %I', partition_name);
    DELETE FROM history_partitions WHERE name = partition_name;
    RETURN NEXT partition_name;
  END LOOP;
END $$;

-- Makes `tbl` (which has id and created_at) a partitioned table whose first partition is the table
-- as it was, renamed; returns the cut-over. The caller then recreates indexes, triggers and keys on
-- the new parent (an index the old table has with the same definition is attached, not built).
CREATE FUNCTION history_partition_table(tbl text) RETURNS timestamptz LANGUAGE plpgsql AS $$
DECLARE
  legacy text := tbl || '_before_partitioning';
  check_name text := tbl || '_before_partitioning';
  index_name text := tbl || '_id_created_at';
  cutover timestamptz;
  valid boolean;
BEGIN
  SELECT substring(pg_get_constraintdef(c.oid) FROM '''([^'']*)''')::timestamptz, c.convalidated INTO cutover, valid
  FROM pg_constraint c WHERE c.conrelid = tbl::regclass AND c.conname = check_name;
  IF cutover IS NULL THEN
    -- Two days ahead, as migrate.ts chooses it: calls recorded until then go to the old table.
    cutover := (date_trunc('day', now() AT TIME ZONE 'UTC') + interval '2 days') AT TIME ZONE 'UTC';
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (created_at < %L)', tbl, check_name, cutover);
  ELSIF NOT valid THEN
    EXECUTE format('ALTER TABLE %I VALIDATE CONSTRAINT %I', tbl, check_name);
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_index i WHERE i.indexrelid = to_regclass(index_name) AND i.indisvalid) THEN
    EXECUTE format('DROP INDEX IF EXISTS %I', index_name);
    EXECUTE format('CREATE UNIQUE INDEX %I ON %I (id, created_at)', index_name, tbl);
  END IF;
  EXECUTE format('ALTER TABLE %I RENAME TO %I', tbl, legacy);
  -- Its key becomes (id, created_at), the parent's: the index is built already, so this is instant.
  EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', legacy, tbl || '_pkey');
  EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I PRIMARY KEY USING INDEX %I', legacy, legacy || '_pkey', index_name);
  EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (created_at)', tbl, legacy);
  EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', tbl, check_name);
  EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I PRIMARY KEY (id, created_at)', tbl, tbl || '_pkey');
  EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (MINVALUE) TO (%L)', tbl, legacy, cutover);
  EXECUTE format('CREATE TABLE %I PARTITION OF %I DEFAULT', tbl || '_default', tbl);
  INSERT INTO history_partitions (name, parent, starts, ends) VALUES (legacy, tbl, NULL, cutover);
  PERFORM history_keep_partitions(tbl, now() + interval '2 months');
  RETURN cutover;
END $$;

-- invocations ---------------------------------------------------------------------------------
-- The old table's indexes keep their definitions under new names; the parent's indexes of the same
-- definition take the old names and adopt them when the old table is attached.
ALTER INDEX invocations_app_created RENAME TO invocations_before_partitioning_app_created;
ALTER INDEX invocations_api_key_created RENAME TO invocations_before_partitioning_api_key_created;
ALTER INDEX invocations_ledger_transaction RENAME TO invocations_before_partitioning_ledger_transaction;
-- Triggers move to the parent: a statement trigger there sees the rows of every partition.
DROP TRIGGER invocations_references_checked ON invocations;
DROP TRIGGER invocations_keep_references ON invocations;

SELECT history_partition_table('invocations');

CREATE INDEX invocations_app_created ON invocations (app_id, created_at DESC, id DESC);
CREATE INDEX invocations_api_key_created ON invocations (api_key_id, created_at) WHERE api_key_id IS NOT NULL;
CREATE INDEX invocations_ledger_transaction ON invocations (ledger_transaction_id) WHERE ledger_transaction_id IS NOT NULL;

CREATE TRIGGER invocations_references_checked AFTER INSERT ON invocations
  REFERENCING NEW TABLE AS recorded_invocations FOR EACH STATEMENT EXECUTE FUNCTION invocations_check_references();
CREATE TRIGGER invocations_keep_references BEFORE UPDATE OF app_id, caller_id, api_key_id ON invocations FOR EACH ROW
  WHEN (OLD.app_id IS DISTINCT FROM NEW.app_id OR OLD.caller_id IS DISTINCT FROM NEW.caller_id OR OLD.api_key_id IS DISTINCT FROM NEW.api_key_id)
  EXECUTE FUNCTION invocations_refuse_repoint();

-- test_runs -----------------------------------------------------------------------------------
ALTER INDEX test_runs_user_created RENAME TO test_runs_before_partitioning_user_created;
SELECT history_partition_table('test_runs');
CREATE INDEX test_runs_user_created ON test_runs (user_id, created_at DESC);
-- The old table's keys have the same definition: they are adopted, not checked again.
ALTER TABLE test_runs ADD CONSTRAINT test_runs_user_id_fkey FOREIGN KEY (user_id) REFERENCES users (id);
ALTER TABLE test_runs ADD CONSTRAINT test_runs_app_id_fkey FOREIGN KEY (app_id) REFERENCES apps (id);
