import { queryOptions, useQuery } from '@tanstack/react-query';
import type { PromptConfig } from '@tollbooth/contract';
import { api } from '../../../lib/api-client';
import { gatewayKeys } from './gateway-keys';

/** GET /api/app/{slug}/prompt/ — owner only; the console reads the active version's input schema. */
export function getPromptConfig(slug: string, signal?: AbortSignal): Promise<PromptConfig> {
  return api.get<PromptConfig>(`/app/${encodeURIComponent(slug)}/prompt/`, { auth: 'required', signal });
}

export function promptConfigQueryOptions(slug: string) {
  return queryOptions({
    queryKey: gatewayKeys.promptConfig(slug),
    queryFn: ({ signal }) => getPromptConfig(slug, signal),
  });
}

export function usePromptConfig(slug: string, { enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({ ...promptConfigQueryOptions(slug), enabled: enabled && slug !== '' });
}
