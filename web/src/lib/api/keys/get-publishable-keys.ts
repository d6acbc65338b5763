import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiKey } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { apiKeyKeys } from './api-key-keys';

/** GET /api/keys/?kind=publishable — the signed-in user's live publishable keys (whole: they are public), newest first. */
export function getPublishableKeys(signal?: AbortSignal): Promise<ApiKey[]> {
  return api.get<ApiKey[]>('/keys/?kind=publishable', { auth: 'required', signal });
}

export function publishableKeysQueryOptions() {
  // Under the keys' list key, so creating or revoking any key refreshes it.
  return queryOptions({ queryKey: [...apiKeyKeys.lists(), 'publishable'] as const, queryFn: ({ signal }) => getPublishableKeys(signal) });
}

export function usePublishableKeys(enabled = true) {
  return useQuery({ ...publishableKeysQueryOptions(), enabled });
}
