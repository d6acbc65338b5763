-- Paid calls post their money per settlement batch (decision 0062): one ledger transaction for the
-- calls of a batch with the same app, caller and description, instead of one per call. Each call's
-- invocation refers to the ledger transaction that moved its money (none when it moved nothing),
-- and still carries its own price, fee and model cost. The per-call transactions written before
-- this, whose reference is call:<invocation id>, are linked the same way.
ALTER TABLE invocations ADD COLUMN ledger_transaction_id uuid;
UPDATE invocations i SET ledger_transaction_id = t.id FROM ledger_transactions t WHERE t.reference = 'call:' || i.id::text;
CREATE INDEX invocations_ledger_transaction ON invocations (ledger_transaction_id) WHERE ledger_transaction_id IS NOT NULL;
