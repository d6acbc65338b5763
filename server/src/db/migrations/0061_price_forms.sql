-- Issue 60: price forms and money finer than a cent.
--   apps.pricing            the rate card (contract/src/pricing.ts) when it is not a whole-cent price per
--                           call; NULL: per call at price_cents (every app before this migration).
--   apps.upcoming_pricing   an announced card that costs callers more, from upcoming_price_at on (the
--                           notice rule of price_cents, for every form).
--   invocations.charge_micros, fee_micros
--                           what the call cost its caller and the platform's fee on it, exactly, in
--                           micro-dollars; price_cents and fee_cents stay the whole cents the ledger
--                           posted for the call.
--   charge_meters           per caller and app, the running total of charges that are not whole cents;
--                           a call posts the cents by which ceil(total / 10000) grew, so over any number
--                           of calls the caller pays the exact total rounded up once.
--   model_cost_meters.fee_micros
--                           per creator, the running total of the platform's fees on their calls; a
--                           call posts the cents by which floor(total / 10000) grew (the creator keeps
--                           the fraction until it is a whole cent).
ALTER TABLE apps ADD COLUMN pricing jsonb, ADD COLUMN upcoming_pricing jsonb;
ALTER TABLE invocations ADD COLUMN charge_micros bigint NOT NULL DEFAULT 0, ADD COLUMN fee_micros bigint NOT NULL DEFAULT 0;
CREATE TABLE charge_meters (
  caller_id uuid NOT NULL REFERENCES users (id),
  app_id uuid NOT NULL REFERENCES apps (id),
  micros bigint NOT NULL DEFAULT 0 CHECK (micros >= 0),
  PRIMARY KEY (caller_id, app_id)
);
ALTER TABLE model_cost_meters ADD COLUMN fee_micros bigint NOT NULL DEFAULT 0 CHECK (fee_micros >= 0);
