// Included calls: an active subscription to the called app covers its calls before credits do.
// Covering is one UPDATE on the subscription row: PostgreSQL re-checks `included_used <
// included_calls` after waiting for the row lock, and a CHECK forbids going over, so with K calls
// left any number of concurrent calls (in any number of processes) gets exactly K covered; the rest
// fall through to credits. A covered call that fails gives its call back (only within the same
// period). A free plan's period rolls over at the first call after it ended; a paid plan's period
// comes from Stripe (invoice.paid / customer.subscription.updated), and past-due or canceled
// subscriptions cover nothing.
import type { Queryable } from '../db/client.ts';

export interface CoveredCall {
  subscriptionId: string;
  /** Exact to the microsecond (text), so a give-back matches only the same period. */
  periodStart: string;
}

const COVER_SQL = `
WITH target AS (
  SELECT id FROM subscriptions
  WHERE user_id = $1 AND app_id = $2 AND status IN ('active', 'trialing') AND included_calls > 0
    AND (current_period_end > now() OR (stripe_subscription_id IS NULL AND NOT cancel_at_period_end))
  ORDER BY current_period_end DESC
  LIMIT 1
)
UPDATE subscriptions s SET
  included_used = CASE WHEN s.current_period_end > now() THEN s.included_used + 1 ELSE 1 END,
  current_period_start = CASE WHEN s.current_period_end > now() THEN s.current_period_start ELSE now() END,
  current_period_end = CASE WHEN s.current_period_end > now() THEN s.current_period_end ELSE now() + interval '1 month' END
FROM target
WHERE s.id = target.id AND s.status IN ('active', 'trialing')
  AND (s.included_used < s.included_calls OR (s.current_period_end <= now() AND s.stripe_subscription_id IS NULL))
RETURNING s.id, s.current_period_start::text AS period_start`;

export function createIncludedCalls(db: Queryable) {
  return {
    /** Uses one included call of the caller's subscription to the app; null when none is left. */
    async cover(userId: string, appId: string): Promise<CoveredCall | null> {
      const { rows } = await db.query<{ id: string; period_start: string }>(COVER_SQL, [userId, appId]);
      const row = rows[0];
      return row ? { subscriptionId: row.id, periodStart: row.period_start } : null;
    },
    /** The call failed: its included call is given back, unless a new period has begun since. */
    async giveBack(covered: CoveredCall): Promise<void> {
      await db.query(
        'UPDATE subscriptions SET included_used = included_used - 1 WHERE id = $1 AND current_period_start = $2::timestamptz AND included_used > 0',
        [covered.subscriptionId, covered.periodStart],
      );
    },
  };
}

export type IncludedCalls = ReturnType<typeof createIncludedCalls>;
