import { ANALYTICS_PERIODS, type AnalyticsPeriod, periodLabel } from '../lib/chart.utils';

const base =
  'px-3 py-1.5 text-sm font-medium first:rounded-l-md last:rounded-r-md focus-visible:relative focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600';
const selected = `${base} bg-indigo-600 text-white`;
const unselected = `${base} bg-white text-gray-700 ring-1 ring-gray-300 ring-inset hover:bg-gray-50`;

/** The 7d / 30d / 90d buttons; the current period is highlighted and pressed. */
export function PeriodSelector({ value, onChange }: { value: AnalyticsPeriod; onChange: (days: AnalyticsPeriod) => void }) {
  return (
    // biome-ignore lint/a11y/useSemanticElements: a group of toggle buttons, not a form fieldset
    <div role="group" aria-label="Period" className="isolate inline-flex shadow-sm">
      {ANALYTICS_PERIODS.map((days) => (
        <button key={days} type="button" aria-pressed={days === value} className={days === value ? selected : unselected} onClick={() => onChange(days)}>
          {periodLabel(days)}
        </button>
      ))}
    </div>
  );
}
