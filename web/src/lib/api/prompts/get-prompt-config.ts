import { queryOptions, useQuery } from '@tanstack/react-query';
import type { PromptConfig } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { promptKeys, promptPath } from './prompt-keys';

/**
 * GET /api/app/{slug}/prompt/ — model settings and the active version (owner only). The one owner
 * of this resource and its query key: the prompt pages and the API console share the cache entry.
 */
export function getPromptConfig(slug: string, signal?: AbortSignal): Promise<PromptConfig> {
  return api.get<PromptConfig>(promptPath(slug), { auth: 'required', signal });
}

export function promptConfigQueryOptions(slug: string) {
  return queryOptions({
    queryKey: promptKeys.config(slug),
    queryFn: ({ signal }) => getPromptConfig(slug, signal),
  });
}

export function usePromptConfig(slug: string, { enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({ ...promptConfigQueryOptions(slug), enabled: enabled && slug !== '' });
}
