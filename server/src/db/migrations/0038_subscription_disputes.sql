-- Disputes of subscription payments (issue 23 item 4): the dispute of the Charge that paid an invoice
-- (the ledger's dispute:<id> and dispute-won:<id>), so a statement shows it with the subscription's
-- refunds. Stripe allows one dispute per charge, so one per invoice payment.
ALTER TABLE subscription_invoices ADD COLUMN dispute_id text UNIQUE;
