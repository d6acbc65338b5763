-- Balances are kept per currency (issue 23): a ledger account belongs to one currency, in that
-- currency's own minor unit, and accounts of one kind and owner exist once per currency. Every
-- account so far is in US cents. The system accounts of another currency are created when first
-- needed (findSystemAccount), like a user's.
ALTER TABLE ledger_accounts ADD COLUMN currency text NOT NULL DEFAULT 'usd' CHECK (currency ~ '^[a-z]{3}$');
DROP INDEX ledger_accounts_user_kind;
DROP INDEX ledger_accounts_system_kind;
CREATE UNIQUE INDEX ledger_accounts_user_kind ON ledger_accounts (kind, user_id, currency) WHERE user_id IS NOT NULL;
CREATE UNIQUE INDEX ledger_accounts_system_kind ON ledger_accounts (kind, currency) WHERE user_id IS NULL;
