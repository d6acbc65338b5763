-- Monthly statements (issue 23 item 6, decision 0036). Every figure of a statement is read from the
-- ledger; these columns and this table only say what a ledger movement was about where its
-- entries cannot: a top-up's Stripe receipt, and which subscription (and so which caller, app and
-- period) a paid invoice or a refunded subscription charge belongs to.
ALTER TABLE credit_top_ups ADD COLUMN stripe_charge_id text;
ALTER TABLE credit_top_ups ADD COLUMN receipt_url text;

-- One row per paid subscription invoice (written with its ledger movement, reference invoice:<id>);
-- charge_id is the Charge that paid it, learnt when it is refunded (reference refund:<charge>:<n>).
CREATE TABLE subscription_invoices (
  invoice_id text PRIMARY KEY,
  subscription_id uuid NOT NULL REFERENCES subscriptions (id),
  period_start timestamptz,
  period_end timestamptz,
  charge_id text UNIQUE
);
CREATE INDEX subscription_invoices_subscription ON subscription_invoices (subscription_id);
