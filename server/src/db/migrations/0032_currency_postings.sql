-- Money in other currencies is booked in its own currency (issue 23, decision 0035).

-- A ledger transaction moves money of one currency, and the database refuses one whose entries are
-- on accounts of different currencies (there are no exchange rates, so such a movement means
-- nothing). Done with keys, not triggers: a transaction has a currency, each entry repeats it, and
-- two composite foreign keys hold an entry to both its account's currency and its transaction's.
-- So a mixed transaction cannot exist, in one statement or several, and the per-call settlement
-- (which writes batches of USD rows and relies on the 'usd' defaults) pays no trigger: its two
-- foreign-key checks per entry were already there (they replace the single-column ones), and the
-- only new work is one index entry per ledger transaction (decision 0035, with the measurement).
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_id_currency UNIQUE (id, currency);
ALTER TABLE ledger_transactions ADD COLUMN currency text NOT NULL DEFAULT 'usd' CHECK (currency ~ '^[a-z]{3}$');
ALTER TABLE ledger_entries ADD COLUMN currency text NOT NULL DEFAULT 'usd';
-- Every account so far is in US dollars (0031), so this changes nothing; it keeps the keys valid whatever the data.
UPDATE ledger_entries e SET currency = a.currency FROM ledger_accounts a WHERE a.id = e.account_id AND a.currency <> e.currency;
UPDATE ledger_transactions t SET currency = e.currency FROM ledger_entries e WHERE e.transaction_id = t.id AND e.currency <> t.currency;
ALTER TABLE ledger_transactions ADD CONSTRAINT ledger_transactions_id_currency UNIQUE (id, currency);
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_account_currency FOREIGN KEY (account_id, currency) REFERENCES ledger_accounts (id, currency);
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_transaction_currency FOREIGN KEY (transaction_id, currency) REFERENCES ledger_transactions (id, currency);
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_account_id_fkey;
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_transaction_id_fkey;

-- Payouts go in the currency earned: one transfer per currency, so one sending payout per creator
-- and currency.
DROP INDEX payouts_one_sending;
CREATE UNIQUE INDEX payouts_one_sending ON payouts (user_id, currency) WHERE status = 'sending';

-- Revenue of an app in currencies other than the US dollar (subscription payments in the plan's
-- currency), per day, in that currency's minor unit. app_daily_stats.revenue_cents stays US cents
-- only (per-call prices and USD plans), so no sum ever adds currencies.
CREATE TABLE app_daily_currency_revenue (
  app_id uuid NOT NULL REFERENCES apps (id),
  day date NOT NULL,
  currency text NOT NULL CHECK (currency ~ '^[a-z]{3}$' AND currency <> 'usd'),
  revenue_minor bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (app_id, day, currency)
);
CREATE INDEX app_daily_currency_revenue_day ON app_daily_currency_revenue (day);
