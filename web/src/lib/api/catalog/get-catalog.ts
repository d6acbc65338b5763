import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import type { CatalogPage } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { type CatalogFilters, catalogKeys } from './catalog-keys';

export const CATALOG_PAGE_SIZE = 12;

/** GET /api/catalog/ — one page of live public apps; no sign-in needed. */
export function getCatalogPage(filters: CatalogFilters, cursor: string | null, signal?: AbortSignal): Promise<CatalogPage> {
  return api.get<CatalogPage>('/catalog/', {
    auth: 'none',
    signal,
    query: { ...filters, q: filters.q?.trim() || undefined, limit: CATALOG_PAGE_SIZE, cursor },
  });
}

export function catalogQueryOptions(filters: CatalogFilters) {
  return infiniteQueryOptions({
    queryKey: catalogKeys.list(filters),
    queryFn: ({ pageParam, signal }) => getCatalogPage(filters, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => (last.has_more ? last.next_cursor : null),
  });
}

/** The catalog with its "Load more" pages. */
export function useCatalog(filters: CatalogFilters) {
  return useInfiniteQuery(catalogQueryOptions(filters));
}
