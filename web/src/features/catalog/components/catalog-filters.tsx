import { useEffect, useId, useState } from 'react';
import { inputField } from '@/components/ui/styles';
import type { CatalogFilters as Filters } from '@/lib/api/catalog/catalog-keys';
import { SORT_OPTIONS } from '../lib/catalog-filters';

const SEARCH_DEBOUNCE_MS = 300;

interface CatalogFiltersProps {
  filters: Filters;
  onChange: (filters: Filters) => void;
}

/** The filters picked from a list, in their order on the screen: "" is the "all" choice. */
const CHOICES: { key: 'type' | 'mode' | 'price'; label: string; options: Record<string, string> }[] = [
  { key: 'type', label: 'Type', options: { '': 'All types', prompt: 'Prompt', workflow: 'Workflow' } },
  { key: 'mode', label: 'Mode', options: { '': 'All modes', completion: 'Completion', chat: 'Chat' } },
  { key: 'price', label: 'Price', options: { '': 'Any price', free: 'Free', paid: 'Paid' } },
];

function Select({ label, value, options, onChange }: { label: string; value: string; options: [string, string][]; onChange: (value: string) => void }) {
  const id = useId();
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium text-gray-700">
        {label}
      </label>
      <select id={id} value={value} onChange={(event) => onChange(event.target.value)} className={`${inputField} mt-1`}>
        {options.map(([optionValue, optionLabel]) => (
          <option key={optionValue} value={optionValue}>
            {optionLabel}
          </option>
        ))}
      </select>
    </div>
  );
}

/** Search words (applied after a short pause in typing), type, mode, price and sort. */
export function CatalogFilters({ filters, onChange }: CatalogFiltersProps) {
  const searchId = useId();
  const [text, setText] = useState(filters.q ?? '');
  useEffect(() => {
    if (text === (filters.q ?? '')) return;
    const timer = setTimeout(() => onChange({ ...filters, q: text }), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, filters, onChange]);

  const set = (key: keyof Filters) => (value: string) => onChange({ ...filters, q: text, [key]: value || undefined });
  return (
    <section aria-label="Filters" className="grid grid-cols-1 gap-4 rounded-lg bg-white p-4 shadow-sm ring-1 ring-gray-200 sm:grid-cols-2 lg:grid-cols-6">
      <div className="sm:col-span-2">
        <label htmlFor={searchId} className="block text-sm font-medium text-gray-700">
          Search
        </label>
        <input
          id={searchId}
          type="search"
          value={text}
          onChange={(event) => setText(event.target.value)}
          placeholder="Name, description or creator"
          className={`${inputField} mt-1`}
        />
      </div>
      {CHOICES.map(({ key, label, options }) => (
        <Select key={key} label={label} value={filters[key] ?? ''} onChange={set(key)} options={Object.entries(options)} />
      ))}
      <Select label="Sort by" value={filters.sort ?? 'popular'} onChange={set('sort')} options={SORT_OPTIONS.map((option) => [option.value, option.label])} />
    </section>
  );
}
