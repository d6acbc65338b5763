// The catalog's filters live in the page's query string, so a search can be shared and the back
// button returns to it. Unknown values are ignored rather than sent to the server.
import type { CatalogSort } from '@tollbooth/contract';
import type { CatalogFilters } from '@/lib/api/catalog/catalog-keys';

export const SORT_OPTIONS: { value: CatalogSort; label: string }[] = [
  { value: 'popular', label: 'Most popular' },
  { value: 'newest', label: 'Newest' },
  { value: 'price_asc', label: 'Price: low to high' },
  { value: 'price_desc', label: 'Price: high to low' },
];

const oneOf = <T extends string>(value: string | null, allowed: readonly T[]): T | undefined =>
  value !== null && (allowed as readonly string[]).includes(value) ? (value as T) : undefined;

export function filtersFromSearch(search: URLSearchParams): CatalogFilters {
  return {
    q: search.get('q') ?? undefined,
    type: oneOf(search.get('type'), ['prompt', 'workflow'] as const),
    mode: oneOf(search.get('mode'), ['completion', 'chat'] as const),
    price: oneOf(search.get('price'), ['free', 'paid'] as const),
    sort: oneOf(
      search.get('sort'),
      SORT_OPTIONS.map((option) => option.value),
    ),
  };
}

/** The query string for filters; empty values are left out. */
export function searchFromFilters(filters: CatalogFilters): URLSearchParams {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) {
    if (value !== undefined && value !== '') search.set(key, String(value));
  }
  return search;
}
