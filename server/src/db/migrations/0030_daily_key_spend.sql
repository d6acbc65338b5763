-- A publishable key's daily spend cap is held like the monthly one (issue 28, decision 0030): the
-- key's row of api_key_spend for the month also counts the current UTC day (`day`, with what was
-- spent and what is held that day), so one conditional upsert of one row holds a call's price on
-- both caps at once, or on neither. A hold remembers its day (`spend_day`), so settling or releasing
-- it moves that day's counters only while the row still counts that day (a new day starts at 0).
ALTER TABLE api_key_spend ADD COLUMN day date;
ALTER TABLE api_key_spend ADD COLUMN day_spent_cents bigint NOT NULL DEFAULT 0 CHECK (day_spent_cents >= 0);
ALTER TABLE api_key_spend ADD COLUMN day_held_cents bigint NOT NULL DEFAULT 0 CHECK (day_held_cents >= 0);
ALTER TABLE credit_holds ADD COLUMN spend_day date;

-- Today's charges of publishable keys so far (before this migration the cap was read from them).
INSERT INTO api_key_spend AS s (api_key_id, month, spent_cents, day, day_spent_cents)
SELECT i.api_key_id, date_trunc('month', now() AT TIME ZONE 'UTC')::date, sum(i.price_cents), (now() AT TIME ZONE 'UTC')::date, sum(i.price_cents)
FROM invocations i JOIN api_keys k ON k.id = i.api_key_id
WHERE k.kind = 'publishable' AND i.status = 'success' AND i.price_cents > 0
  AND i.created_at >= (date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')
GROUP BY i.api_key_id
ON CONFLICT (api_key_id, month) DO UPDATE SET day = EXCLUDED.day, day_spent_cents = EXCLUDED.day_spent_cents;
