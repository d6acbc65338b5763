import { queryOptions, useQuery } from '@tanstack/react-query';
import type { PerformanceAnalytics } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import type { AnalyticsPeriod } from '../lib/chart.utils';
import { analyticsKeys, appAnalyticsPath } from './analytics-keys';

/** GET /api/app/{slug}/analytics/performance/?days= */
export async function getAppPerformance(slug: string, days: AnalyticsPeriod, signal?: AbortSignal): Promise<PerformanceAnalytics | null> {
  // An empty answer is kept as null (the screens say No data available), never undefined.
  return (await api.get<PerformanceAnalytics | undefined>(`${appAnalyticsPath(slug)}performance/`, { query: { days }, auth: 'required', signal })) ?? null;
}

export function appPerformanceQueryOptions(slug: string, days: AnalyticsPeriod) {
  return queryOptions({
    queryKey: analyticsKeys.performance(slug, days),
    queryFn: ({ signal }) => getAppPerformance(slug, days, signal),
  });
}

export function useAppPerformance(slug: string, days: AnalyticsPeriod, { enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({ ...appPerformanceQueryOptions(slug, days), enabled });
}
