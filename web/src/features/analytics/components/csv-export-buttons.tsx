import { secondaryButton } from '@/components/ui/styles';
import { useAnalyticsCsvExport } from '../api/export-analytics-csv';
import type { AnalyticsPeriod } from '../lib/chart.utils';

/** Export Invocations CSV (every call of the period shown) and Export Usage CSV (the period's daily figures). */
export function CsvExportButtons({ slug, days }: { slug: string; days: AnalyticsPeriod }) {
  const { exportCsv, busy, error } = useAnalyticsCsvExport(slug, days);
  return (
    <div className="flex flex-col items-start gap-2 sm:items-end">
      <div className="flex flex-wrap gap-3">
        <button type="button" className={secondaryButton} disabled={busy !== null} onClick={() => void exportCsv('invocations')}>
          {busy === 'invocations' ? 'Exporting...' : 'Export Invocations CSV'}
        </button>
        <button type="button" className={secondaryButton} disabled={busy !== null} onClick={() => void exportCsv('usage')}>
          {busy === 'usage' ? 'Exporting...' : 'Export Usage CSV'}
        </button>
      </div>
      {error ? (
        <p role="alert" className="text-sm text-red-600">
          {error}
        </p>
      ) : null}
    </div>
  );
}
