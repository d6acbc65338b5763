import { APP_STATUSES, VISIBILITIES } from '@tollbooth/contract';
import { useId } from 'react';
import { Options } from '@/components/ui/options';
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
      <FilterSelect
        id={`${id}-visibility`}
        label="Visibility"
        options={VISIBILITIES}
        value={value.visibility}
        onChange={(visibility) => onChange({ visibility })}
      />
      <FilterSelect id={`${id}-status`} label="Status" options={APP_STATUSES} value={value.status} onChange={(status) => onChange({ status })} />
    </fieldset>
  );
}

/** One labelled filter: "All" (the empty value), then each option. */
function FilterSelect<T extends string>({
  id,
  label,
  options,
  value,
  onChange,
}: {
  id: string;
  label: string;
  options: readonly T[];
  value: T | '';
  onChange: (value: T | '') => void;
}) {
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium text-gray-700">
        {label}
      </label>
      <select id={id} className={`${inputField} mt-1 w-40`} value={value} onChange={(event) => onChange(event.target.value as T | '')}>
        <option value="">All</option>
        <Options options={options} />
      </select>
    </div>
  );
}
