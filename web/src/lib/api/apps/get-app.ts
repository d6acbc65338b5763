import { queryOptions, useQuery } from '@tanstack/react-query';
import type { Application } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { appKeys, appPath } from './app-keys';

/** GET /api/app/{slug}/ */
export function getApp(slug: string, signal?: AbortSignal): Promise<Application> {
  return api.get<Application>(appPath(slug), { signal });
}

export function appQueryOptions(slug: string) {
  return queryOptions({
    queryKey: appKeys.detail(slug),
    queryFn: ({ signal }) => getApp(slug, signal),
  });
}

export function useApp(slug: string) {
  return useQuery(appQueryOptions(slug));
}
