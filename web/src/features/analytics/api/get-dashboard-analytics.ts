import { queryOptions, useQuery } from '@tanstack/react-query';
import type { DashboardAnalytics } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import type { AnalyticsPeriod } from '../lib/chart.utils';
import { analyticsKeys } from './analytics-keys';

/** GET /api/analytics/dashboard/?days= */
export async function getDashboardAnalytics(days: AnalyticsPeriod, signal?: AbortSignal): Promise<DashboardAnalytics | null> {
  // An empty answer is kept as null (the screens say No data available), never undefined.
  return (await api.get<DashboardAnalytics | undefined>('/analytics/dashboard/', { query: { days }, auth: 'required', signal })) ?? null;
}

export function dashboardAnalyticsQueryOptions(days: AnalyticsPeriod) {
  return queryOptions({
    queryKey: analyticsKeys.dashboard(days),
    queryFn: ({ signal }) => getDashboardAnalytics(days, signal),
  });
}

export function useDashboardAnalytics(days: AnalyticsPeriod) {
  return useQuery(dashboardAnalyticsQueryOptions(days));
}
