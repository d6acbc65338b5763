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
import type { Queryable } from '../../db/client.ts';
import type { InvalidationBus } from '../../db/invalidation.ts';
import {
  COVER_INCLUDED_CALL_SQL,
  COVER_INCLUDED_USAGE_SQL,
  GIVE_BACK_INCLUDED_CALL_SQL,
  GIVE_BACK_INCLUDED_USAGE_SQL,
  ROLL_FREE_PERIODS_SQL,
  SUBSCRIBED_APPS_SQL,
} from './queries.ts';

export interface CoveredCall {
  subscriptionId: string;
  /** Exact to the microsecond (text), so a give-back matches only the same period. */
  periodStart: string;
  /** A plan with dollars of usage (issue 60): the call's most, in micro-dollars, charged against it; 0 for an included call. */
  usageMicros: number;
}

/** Moves a user's free subscriptions whose period ended to the current one (included calls unused). */
export async function rollFreePeriods(db: Queryable, userId: string): Promise<void> {
  await db.query(ROLL_FREE_PERIODS_SQL, [userId]);
}

/** Past this many cached users the cache starts afresh. */
const SUBSCRIBERS_CACHE_MAX = 100_000;
const SUBSCRIBERS_MAX_AGE_MS = 60_000;

/**
 * Which apps each caller has a subscription with included calls to (any status), so that the
 * common paid call, from a caller without one, makes no round trip here. Only existence is cached:
 * whether an included call is left is always decided by COVER_INCLUDED_CALL_SQL (queries.ts).
 * Forgotten when the caller's subscriptions change in any process (db/invalidation.ts) and bypassed
 * while that is down.
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
    const { rows } = await db.query<{ app_id: string }>(SUBSCRIBED_APPS_SQL, [userId]);
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
    /**
     * Uses one included call of the caller's subscription to the app, else `mostMicros` of a plan's
     * dollars of usage (issue 60); null when neither is left (credits pay: overage at the app's rate).
     */
    async cover(userId: string, appId: string, mostMicros: number): Promise<CoveredCall | null> {
      const apps = await subscribedApps?.(userId);
      if (apps && !apps.has(appId)) return null;
      const { rows } = await db.query<{ id: string; period_start: string }>(COVER_INCLUDED_CALL_SQL, [userId, appId]);
      const row = rows[0];
      if (row) return { subscriptionId: row.id, periodStart: row.period_start, usageMicros: 0 };
      if (mostMicros <= 0) return null;
      const usage = (await db.query<{ id: string; period_start: string }>(COVER_INCLUDED_USAGE_SQL, [userId, appId, mostMicros])).rows[0];
      return usage ? { subscriptionId: usage.id, periodStart: usage.period_start, usageMicros: mostMicros } : null;
    },
    /** The call failed: its included call, or all the usage it took, is given back, unless a new period has begun since. */
    async giveBack(covered: CoveredCall): Promise<void> {
      if (covered.usageMicros > 0) await db.query(GIVE_BACK_INCLUDED_USAGE_SQL, [covered.subscriptionId, covered.periodStart, covered.usageMicros]);
      else await db.query(GIVE_BACK_INCLUDED_CALL_SQL, [covered.subscriptionId, covered.periodStart]);
    },
    /** A call charged against a plan's usage cost `usedMicros` of the most it took: the rest goes back to the plan. */
    async used(covered: CoveredCall, usedMicros: number): Promise<void> {
      const unused = covered.usageMicros - usedMicros;
      if (unused > 0) await db.query(GIVE_BACK_INCLUDED_USAGE_SQL, [covered.subscriptionId, covered.periodStart, unused]);
    },
  };
}

export type IncludedCalls = ReturnType<typeof createIncludedCalls>;
