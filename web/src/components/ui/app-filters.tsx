import { APP_STATUSES, type AppStatus, VISIBILITIES, type Visibility } from '@tollbooth/contract';
import { useId } from 'react';
import { inputField } from '@/components/ui/styles';
import type { AppFilterValues } from '@/lib/filter-apps';

interface AppFiltersProps {
  value: AppFilterValues;
  onChange: (changes: Partial<AppFilterValues>) => void;
}

/** Visibility (All, private, public, embed) and Status (All, draft, live, archived) selects. */
export function AppFilters({ value, onChange }: AppFiltersProps) {
  const id = useId();
  return (
    <fieldset className="flex flex-wrap items-end gap-4">
      <legend className="sr-only">Filters</legend>
      <div>
        <label htmlFor={`${id}-visibility`} className="block text-sm font-medium text-gray-700">
          Visibility
        </label>
        <select
          id={`${id}-visibility`}
          className={`${inputField} mt-1 w-40`}
          value={value.visibility}
          onChange={(event) => onChange({ visibility: event.target.value as Visibility | '' })}
        >
          <option value="">All</option>
          {VISIBILITIES.map((visibility) => (
            <option key={visibility} value={visibility}>
              {visibility}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor={`${id}-status`} className="block text-sm font-medium text-gray-700">
          Status
        </label>
        <select
          id={`${id}-status`}
          className={`${inputField} mt-1 w-40`}
          value={value.status}
          onChange={(event) => onChange({ status: event.target.value as AppStatus | '' })}
        >
          <option value="">All</option>
          {APP_STATUSES.map((status) => (
            <option key={status} value={status}>
              {status}
            </option>
          ))}
        </select>
      </div>
    </fieldset>
  );
}
