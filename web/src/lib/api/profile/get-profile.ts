import { queryOptions, useQuery } from '@tanstack/react-query';
import type { Profile } from '@tollbooth/contract';
import { api } from '@/lib/api-client';

export const profileQueryKey = ['profile'] as const;

/** GET /api/auth/profile/ — the first call for a new account also creates its user row. */
export function getProfile(signal?: AbortSignal): Promise<Profile> {
  return api.get<Profile>('/auth/profile/', { auth: 'required', signal });
}

export function profileQueryOptions() {
  return queryOptions({
    queryKey: profileQueryKey,
    queryFn: ({ signal }) => getProfile(signal),
  });
}

export function useProfile({ enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({ ...profileQueryOptions(), enabled });
}
