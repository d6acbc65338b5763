-- A hold can now be a lease serving several calls of one process: settled calls reduce it, so
-- it may reach zero before its process lets it go.
ALTER TABLE credit_holds DROP CONSTRAINT credit_holds_amount_cents_check;
ALTER TABLE credit_holds ADD CONSTRAINT credit_holds_amount_nonnegative CHECK (amount_cents >= 0);
