import { useQuery } from '@tanstack/react-query';
import type { PerformanceAnalytics, UsageAnalytics } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import type { AnalyticsPeriod } from '../lib/chart.utils';
import { analyticsKeys, appAnalyticsPath } from './analytics-keys';

/** The periodic analytics of one application, by the last part of their path. */
interface AppAnalytics {
  usage: UsageAnalytics;
  performance: PerformanceAnalytics;
}

/** GET /api/app/{slug}/analytics/{usage|performance}/?days= */
function useAppAnalytics<Part extends keyof AppAnalytics>(part: Part, slug: string, days: AnalyticsPeriod, enabled: boolean) {
  return useQuery({
    queryKey: analyticsKeys[part](slug, days),
    // An empty answer is kept as null (the screens say No data available), never undefined.
    queryFn: async ({ signal }): Promise<AppAnalytics[Part] | null> =>
      (await api.get<AppAnalytics[Part] | undefined>(`${appAnalyticsPath(slug)}${part}/`, { query: { days }, auth: 'required', signal })) ?? null,
    enabled,
  });
}

export function useAppUsageAnalytics(slug: string, days: AnalyticsPeriod, { enabled = true }: { enabled?: boolean } = {}) {
  return useAppAnalytics('usage', slug, days, enabled);
}

export function useAppPerformance(slug: string, days: AnalyticsPeriod, { enabled = true }: { enabled?: boolean } = {}) {
  return useAppAnalytics('performance', slug, days, enabled);
}
