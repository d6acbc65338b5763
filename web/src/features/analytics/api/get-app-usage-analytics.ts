import { queryOptions, useQuery } from '@tanstack/react-query';
import type { UsageAnalytics } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import type { AnalyticsPeriod } from '../lib/chart.utils';
import { analyticsKeys, appAnalyticsPath } from './analytics-keys';

/** GET /api/app/{slug}/analytics/usage/?days= */
export async function getAppUsageAnalytics(slug: string, days: AnalyticsPeriod, signal?: AbortSignal): Promise<UsageAnalytics | null> {
  // An empty answer is kept as null (the screens say No data available), never undefined.
  return (await api.get<UsageAnalytics | undefined>(`${appAnalyticsPath(slug)}usage/`, { query: { days }, auth: 'required', signal })) ?? null;
}

export function appUsageAnalyticsQueryOptions(slug: string, days: AnalyticsPeriod) {
  return queryOptions({
    queryKey: analyticsKeys.usage(slug, days),
    queryFn: ({ signal }) => getAppUsageAnalytics(slug, days, signal),
  });
}

export function useAppUsageAnalytics(slug: string, days: AnalyticsPeriod, { enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({ ...appUsageAnalyticsQueryOptions(slug, days), enabled });
}
