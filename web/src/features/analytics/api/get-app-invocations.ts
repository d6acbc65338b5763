import { queryOptions, useQuery } from '@tanstack/react-query';
import type { RecentInvocations } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { analyticsKeys, appAnalyticsPath } from './analytics-keys';

/** Recent invocations limit (spec section 9). */
export const RECENT_INVOCATIONS_LIMIT = 20;

/** GET /api/app/{slug}/analytics/invocations/?limit= */
export function getAppInvocations(slug: string, limit = RECENT_INVOCATIONS_LIMIT, signal?: AbortSignal): Promise<RecentInvocations> {
  return api.get<RecentInvocations>(`${appAnalyticsPath(slug)}invocations/`, { query: { limit }, auth: 'required', signal });
}

export function appInvocationsQueryOptions(slug: string, limit = RECENT_INVOCATIONS_LIMIT) {
  return queryOptions({
    queryKey: analyticsKeys.invocations(slug, limit),
    queryFn: ({ signal }) => getAppInvocations(slug, limit, signal),
  });
}

export function useAppInvocations(slug: string, { enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({ ...appInvocationsQueryOptions(slug), enabled });
}
