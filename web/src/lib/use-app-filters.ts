import { APP_STATUSES, type AppStatus, VISIBILITIES, type Visibility } from '@tollbooth/contract';
import { useSearchParams } from 'react-router';
import type { AppFilterValues } from '@/lib/filter-apps';

/** The list filters live in the query string (?visibility=public&status=live), so they survive reloads and Back. */
export function useAppFilters(): [AppFilterValues, (changes: Partial<AppFilterValues>) => void] {
  const [params, setParams] = useSearchParams();
  const visibility = params.get('visibility') ?? '';
  const status = params.get('status') ?? '';
  const filters: AppFilterValues = {
    visibility: (VISIBILITIES as readonly string[]).includes(visibility) ? (visibility as Visibility) : '',
    status: (APP_STATUSES as readonly string[]).includes(status) ? (status as AppStatus) : '',
  };

  const setFilters = (changes: Partial<AppFilterValues>) => {
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        for (const [key, value] of Object.entries(changes)) {
          if (value) next.set(key, value);
          else next.delete(key);
        }
        return next;
      },
      { replace: true },
    );
  };

  return [filters, setFilters];
}
