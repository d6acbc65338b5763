// Included calls: an active subscription to the called app covers its calls before credits do.
// Covering is one UPDATE on the subscription row: PostgreSQL re-checks `included_used <
// included_calls` after waiting for the row lock, and a CHECK forbids going over, so with K calls
// left any number of concurrent calls (in any number of processes) gets exactly K covered; the rest
// fall through to credits. A covered call that fails gives its call back (only within the same
// period). A paid plan's period comes from Stripe (invoice.paid / customer.subscription.updated),
// and past-due or canceled subscriptions cover nothing.
//
// A free plan's periods are whole calendar months from the day it was subscribed (created_at, its
// anchor, as Stripe's billing_cycle_anchor): period k is [anchor + k months, anchor + k+1 months).
// Nothing has to run at the boundary: whoever looks first after it (a call covering, or a read of
// the subscription) moves the row to the period that contains now, with its included calls unused,
// however many periods passed in between. So the included calls reset at each period start and a
// read shows the right current_period_end and days_remaining even if no call came in between.
import type { Queryable } from '../db/client.ts';
import type { InvalidationBus } from '../db/invalidation.ts';

export interface CoveredCall {
  subscriptionId: string;
  /** Exact to the microsecond (text), so a give-back matches only the same period. */
  periodStart: string;
}

/**
 * The period that contains now() for a free subscription `s` (anchor s.created_at): whole months
 * from the anchor by age(), plus one when the month-end clamp (Jan 31 + 1 month = Feb 28) left the
 * computed period already over.
 */
const ALIGNED_PERIOD = `
  SELECT s.id, CASE WHEN s.created_at + make_interval(months => m.months + 1) <= now() THEN m.months + 1 ELSE m.months END AS months, s.created_at AS anchor
  FROM subscriptions s,
    LATERAL (SELECT (extract(year FROM age(now(), s.created_at)) * 12 + extract(month FROM age(now(), s.created_at)))::int AS months) m`;

const COVER_SQL = `
WITH target AS (
  ${ALIGNED_PERIOD}
  WHERE s.user_id = $1 AND s.app_id = $2 AND s.status IN ('active', 'trialing') AND s.included_calls > 0
    AND (s.current_period_end > now() OR (s.stripe_subscription_id IS NULL AND NOT s.cancel_at_period_end))
    -- Among several plans on one app, one with a call left (issue 24: a second plan's calls were never used).
    AND (s.included_used < s.included_calls OR (s.current_period_end <= now() AND s.stripe_subscription_id IS NULL))
  ORDER BY s.current_period_end DESC
  LIMIT 1
)
UPDATE subscriptions s SET
  included_used = CASE WHEN s.current_period_end > now() THEN s.included_used + 1 ELSE 1 END,
  current_period_start = CASE WHEN s.current_period_end > now() THEN s.current_period_start ELSE target.anchor + make_interval(months => target.months) END,
  current_period_end = CASE WHEN s.current_period_end > now() THEN s.current_period_end ELSE target.anchor + make_interval(months => target.months + 1) END
FROM target
WHERE s.id = target.id AND s.status IN ('active', 'trialing')
  AND (s.included_used < s.included_calls OR (s.current_period_end <= now() AND s.stripe_subscription_id IS NULL))
RETURNING s.id, s.current_period_start::text AS period_start`;

const ROLL_SQL = `
WITH lapsed AS (
  ${ALIGNED_PERIOD}
  WHERE s.user_id = $1 AND s.stripe_subscription_id IS NULL AND s.status IN ('active', 'trialing') AND NOT s.cancel_at_period_end
    AND s.current_period_end <= now()
)
UPDATE subscriptions s SET included_used = 0,
  current_period_start = lapsed.anchor + make_interval(months => lapsed.months),
  current_period_end = lapsed.anchor + make_interval(months => lapsed.months + 1)
FROM lapsed
WHERE s.id = lapsed.id AND s.current_period_end <= now()`;

/** Moves a user's free subscriptions whose period ended to the current one (included calls unused). */
export async function rollFreePeriods(db: Queryable, userId: string): Promise<void> {
  await db.query(ROLL_SQL, [userId]);
}

/** Past this many cached users the cache starts afresh. */
const SUBSCRIBERS_CACHE_MAX = 100_000;
const SUBSCRIBERS_MAX_AGE_MS = 60_000;

/**
 * Which apps each caller has a subscription with included calls to (any status), so that the
 * common paid call, from a caller without one, makes no round trip here. Only existence is cached:
 * whether an included call is left is always decided by COVER_SQL. Forgotten when the caller's
 * subscriptions change in any process (db/invalidation.ts) and bypassed while that is down.
 */
function createSubscribedApps(db: Queryable, bus: InvalidationBus) {
  const byUser = new Map<string, { apps: ReadonlySet<string>; loadedAt: number }>();
  bus.on('subscriber', (id) => (id === null ? byUser.clear() : byUser.delete(id)));
  bus.on('user', (id) => (id === null ? byUser.clear() : byUser.delete(id)));
  return async (userId: string): Promise<ReadonlySet<string> | null> => {
    if (!bus.live()) return null;
    const cached = byUser.get(userId);
    if (cached && Date.now() - cached.loadedAt < SUBSCRIBERS_MAX_AGE_MS) return cached.apps;
    const token = bus.track();
    const { rows } = await db.query<{ app_id: string }>('SELECT DISTINCT app_id FROM subscriptions WHERE user_id = $1 AND included_calls > 0', [userId]);
    const apps = new Set(rows.map((row) => row.app_id));
    if (bus.live() && bus.stillCurrent(token)) {
      if (byUser.size >= SUBSCRIBERS_CACHE_MAX) byUser.clear();
      byUser.set(userId, { apps, loadedAt: Date.now() });
    }
    return apps;
  };
}

export function createIncludedCalls(db: Queryable, invalidation?: InvalidationBus) {
  const subscribedApps = invalidation ? createSubscribedApps(db, invalidation) : null;
  return {
    /** Uses one included call of the caller's subscription to the app; null when none is left. */
    async cover(userId: string, appId: string): Promise<CoveredCall | null> {
      const apps = await subscribedApps?.(userId);
      if (apps && !apps.has(appId)) return null;
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
