import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiKey } from '@tollbooth/contract';
import { apiKeyKeys } from '@/lib/api/keys/api-key-keys';
import { api } from '@/lib/api-client';

/** GET /api/keys/ — the signed-in user's keys (never the keys themselves), newest first, revoked ones left out. */
export function getApiKeys(signal?: AbortSignal): Promise<ApiKey[]> {
  return api.get<ApiKey[]>('/keys/', { auth: 'required', signal });
}

export function apiKeysQueryOptions() {
  return queryOptions({
    queryKey: apiKeyKeys.lists(),
    queryFn: ({ signal }) => getApiKeys(signal),
  });
}

export function useApiKeys() {
  return useQuery(apiKeysQueryOptions());
}
