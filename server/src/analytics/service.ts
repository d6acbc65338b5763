// Analytics read the per-app per-day rollups kept as calls are recorded, never the invocations.
import type { UsageAnalytics } from '@tollbooth/contract';
import type { Queryable } from '../db/client.ts';
import { centsToDollars, periodDays } from './period.ts';

export async function readUsage(db: Queryable, appId: string, days: number): Promise<UsageAnalytics> {
  const period = periodDays(days);
  const start = period[0]!;
  const [stats, users] = await Promise.all([
    db.query<{ day: string; invocations: number; revenue_cents: number }>(
      'SELECT day, invocations, revenue_cents FROM app_daily_stats WHERE app_id = $1 AND day >= $2::date ORDER BY day',
      [appId, start],
    ),
    db.query<{ count: number }>('SELECT count(DISTINCT end_user)::int AS count FROM app_daily_users WHERE app_id = $1 AND day >= $2::date', [appId, start]),
  ]);
  const byDay = new Map(stats.rows.map((row) => [row.day, row]));
  let totalInvocations = 0;
  let totalRevenueCents = 0;
  const data = period.map((date) => {
    const row = byDay.get(date);
    totalInvocations += row?.invocations ?? 0;
    totalRevenueCents += row?.revenue_cents ?? 0;
    return { date, invocations: row?.invocations ?? 0, revenue: centsToDollars(row?.revenue_cents ?? 0) };
  });
  return {
    total_invocations: totalInvocations,
    total_users: users.rows[0]?.count ?? 0,
    total_revenue: centsToDollars(totalRevenueCents),
    total_revenue_cents: totalRevenueCents,
    data,
  };
}
