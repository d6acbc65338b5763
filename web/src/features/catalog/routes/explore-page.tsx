import { useCallback } from 'react';
import { useSearchParams } from 'react-router';
import { ErrorBox } from '@/components/ui/error-box';
import { Spinner } from '@/components/ui/spinner';
import { secondaryButton } from '@/components/ui/styles';
import type { CatalogFilters as Filters } from '@/lib/api/catalog/catalog-keys';
import { useCatalog } from '@/lib/api/catalog/get-catalog';
import { getErrorMessage } from '@/lib/errors';
import { CatalogCard } from '../components/catalog-card';
import { CatalogFilters } from '../components/catalog-filters';
import { filtersFromSearch, searchFromFilters } from '../lib/catalog-filters';

/** /explore: the public catalog of live public apps, for everyone (no sign-in). */
export function ExplorePage() {
  const [search, setSearch] = useSearchParams();
  const filters = filtersFromSearch(search);
  const catalog = useCatalog(filters);
  const onChange = useCallback((next: Filters) => setSearch(searchFromFilters(next), { replace: true }), [setSearch]);
  const apps = catalog.data?.pages.flatMap((page) => page.results) ?? [];

  return (
    <div className="mx-auto max-w-7xl px-4 py-8 sm:px-6 lg:px-8">
      <h1 className="text-2xl font-bold tracking-tight text-gray-900 sm:text-3xl">Explore</h1>
      <p className="mt-1 text-sm text-gray-600">Live AI apps you can call with one API key, paid per call from your credits.</p>

      <div className="mt-6">
        <CatalogFilters filters={filters} onChange={onChange} />
      </div>

      <div className="mt-6" aria-live="polite">
        {catalog.isPending ? (
          <div className="flex justify-center py-12">
            <Spinner label="Loading apps" className="h-8 w-8" />
          </div>
        ) : catalog.isError ? (
          <ErrorBox message={getErrorMessage(catalog.error)} />
        ) : apps.length === 0 ? (
          <div className="rounded-lg border-2 border-dashed border-gray-300 px-6 py-12 text-center">
            <h2 className="text-sm font-semibold text-gray-900">No apps found</h2>
            <p className="mt-1 text-sm text-gray-500">Try other words or fewer filters.</p>
          </div>
        ) : (
          <>
            <ul aria-label="Apps" className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3">
              {apps.map((app) => (
                <CatalogCard key={app.slug} app={app} />
              ))}
            </ul>
            {catalog.hasNextPage ? (
              <div className="mt-6 flex justify-center">
                <button type="button" className={secondaryButton} disabled={catalog.isFetchingNextPage} onClick={() => void catalog.fetchNextPage()}>
                  {catalog.isFetchingNextPage ? 'Loading...' : 'Load more'}
                </button>
              </div>
            ) : null}
          </>
        )}
      </div>
    </div>
  );
}
