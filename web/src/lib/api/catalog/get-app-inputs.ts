import { useQuery } from '@tanstack/react-query';
import type { AppInputs } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { catalogKeys } from './catalog-keys';

/** GET /api/app/{slug}/inputs — the inputs of any app the caller may call (embed apps too, which the catalog leaves out). */
export function getAppInputs(slug: string, signal?: AbortSignal): Promise<AppInputs> {
  return api.get<AppInputs>(`/app/${encodeURIComponent(slug)}/inputs`, { signal });
}

export function useAppInputs(slug: string, { enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: [...catalogKeys.detail(slug), 'inputs'],
    queryFn: ({ signal }) => getAppInputs(slug, signal),
    // A 404 (not callable by this caller) is an answer, not a hiccup.
    retry: false,
    enabled: enabled && slug !== '',
  });
}
