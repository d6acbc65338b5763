-- A ledger transaction's entries are checked to sum to zero once per statement that writes them,
-- not once per entry at commit (decision 0046). The deferred row trigger of 0001 ran its query for
-- every entry: a paid call's three or four entries asked the same question three or four times, in
-- a plpgsql call each, and that was about a third of PostgreSQL's CPU per settled call. Every writer
-- now inserts a transaction's entries in one statement (ledger.ts, settlement.ts), and this trigger
-- refuses that statement when any transaction it touched does not balance, counting the entries
-- that earlier statements wrote too.
DROP TRIGGER ledger_entries_balanced ON ledger_entries;
DROP FUNCTION ledger_check_balanced();

CREATE FUNCTION ledger_check_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  unbalanced uuid;
BEGIN
  SELECT n.transaction_id INTO unbalanced
  FROM (SELECT DISTINCT transaction_id FROM written_entries) n
  WHERE (SELECT sum(e.amount_cents) FROM ledger_entries e WHERE e.transaction_id = n.transaction_id) <> 0
  LIMIT 1;
  IF unbalanced IS NOT NULL THEN
    RAISE EXCEPTION 'ledger transaction % does not balance', unbalanced USING ERRCODE = '23514';
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER ledger_entries_balanced AFTER INSERT ON ledger_entries
  REFERENCING NEW TABLE AS written_entries FOR EACH STATEMENT EXECUTE FUNCTION ledger_check_balanced();
