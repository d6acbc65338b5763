import { queryOptions, useQuery } from '@tanstack/react-query';
import type { Application } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { appKeys } from './app-keys';

/** GET /api/app/ — the signed-in user's applications, newest first. */
export function getApps(signal?: AbortSignal): Promise<Application[]> {
  return api.get<Application[]>('/app/', { auth: 'required', signal });
}

export function appsQueryOptions() {
  return queryOptions({
    queryKey: appKeys.lists(),
    queryFn: ({ signal }) => getApps(signal),
  });
}

export function useApps({ enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({ ...appsQueryOptions(), enabled });
}
