import { queryOptions, useQueries, useQuery } from '@tanstack/react-query';
import type { UsageAnalytics } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { appKeys, appPath } from './app-keys';

/** GET /api/app/{slug}/analytics/usage/ — totals over the server's default period (30 days). */
export function getAppUsage(slug: string, signal?: AbortSignal): Promise<UsageAnalytics> {
  return api.get<UsageAnalytics>(`${appPath(slug)}analytics/usage/`, { auth: 'required', signal });
}

export function appUsageQueryOptions(slug: string) {
  return queryOptions({
    queryKey: appKeys.usage(slug),
    queryFn: async ({ signal }) => {
      try {
        return await getAppUsage(slug, signal);
      } catch (error) {
        // The screens show a dash instead of the figures: a failure for one application is only logged.
        if (!signal.aborted) console.error(`Failed to load usage analytics for ${slug}`, error);
        throw error;
      }
    },
  });
}

export function useAppUsage(slug: string, { enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({ ...appUsageQueryOptions(slug), enabled });
}

/** One usage query per application, keyed by slug in the result. */
export function useAppsUsage(slugs: readonly string[]): Map<string, UsageAnalytics | undefined> {
  return useQueries({
    queries: slugs.map((slug) => appUsageQueryOptions(slug)),
    combine: (results) => new Map(results.map((result, index) => [slugs[index] as string, result.data])),
  });
}
