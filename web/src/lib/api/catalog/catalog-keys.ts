// The query-key factory of the public catalog (GET /api/catalog/ and /api/catalog/{slug}).
import type { CatalogQuery } from '@tollbooth/contract';

export type CatalogFilters = Omit<CatalogQuery, 'cursor' | 'limit'>;

export const catalogKeys = {
  all: ['catalog'] as const,
  lists: () => [...catalogKeys.all, 'list'] as const,
  list: (filters: CatalogFilters) => [...catalogKeys.lists(), filters] as const,
  detail: (slug: string) => [...catalogKeys.all, 'detail', slug] as const,
};
