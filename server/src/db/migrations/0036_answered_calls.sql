-- Answered calls whose settlement has not committed yet (decision 0039). A paid call answered
-- before its settlement commit (decision 0024) is written here first, in a small statement committed
-- with synchronous_commit off; the batched settlement deletes it in the same statement that charges
-- it. A row left by a process that died is settled from its lease's hold (still in credit_holds,
-- which the sweeper does not release while a row here needs it) by any process once that hold
-- expires, and at once when an embedded database opens. `settlement` is the call's settlement as
-- JSON (text: JSON escapes every character, so nothing in an answer can fail the insert).
CREATE TABLE answered_calls (
  id uuid PRIMARY KEY,
  hold_id uuid,
  cost_hold_id uuid,
  settlement text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
