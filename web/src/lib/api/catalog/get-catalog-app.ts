import { queryOptions, useQuery } from '@tanstack/react-query';
import type { CatalogAppDetail } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { catalogKeys } from './catalog-keys';

/** GET /api/catalog/{slug} — a live public app's public page: inputs, plans, endpoints, snippets. */
export function getCatalogApp(slug: string, signal?: AbortSignal): Promise<CatalogAppDetail> {
  return api.get<CatalogAppDetail>(`/catalog/${encodeURIComponent(slug)}`, { auth: 'none', signal });
}

export function catalogAppQueryOptions(slug: string) {
  return queryOptions({
    queryKey: catalogKeys.detail(slug),
    queryFn: ({ signal }) => getCatalogApp(slug, signal),
    // A 404 (not in the catalog) is an answer, not a hiccup.
    retry: false,
  });
}

export function useCatalogApp(slug: string, { enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({ ...catalogAppQueryOptions(slug), enabled: enabled && slug !== '' });
}
