// GET /api/app/{slug}/analytics/invocations.csv and /usage.csv answer text/csv, so they are read as
// a Blob (through apiFetch, not the JSON client) and handed to the browser as a download. The file name
// comes from the server's Content-Disposition, with a sensible fallback.
import { useCallback, useState } from 'react';
import { apiFetch } from '@/lib/api-client';
import { useAuth } from '@/lib/auth/use-auth';
import { getErrorMessage } from '@/lib/errors';
import { saveBlob } from '@/lib/save-blob';
import type { AnalyticsPeriod } from '../lib/chart.utils';
import { appAnalyticsPath } from './analytics-keys';

export type CsvExportKind = 'invocations' | 'usage';

export const CSV_EXPORT_FAILED_MESSAGE = 'Failed to export CSV';

/** The file name from `attachment; filename="x.csv"`, or null. */
export function fileNameFromDisposition(header: string | null): string | null {
  const match = header ? /filename="?([^";]+)"?/i.exec(header) : null;
  return match?.[1] ?? null;
}

export async function exportAnalyticsCsv(
  slug: string,
  kind: CsvExportKind,
  days: AnalyticsPeriod,
  accessToken: string | null,
): Promise<{ blob: Blob; fileName: string }> {
  // Both follow the period shown: the usage CSV its days, the invocations CSV every call of them (streamed by the server).
  const response = await apiFetch(`${appAnalyticsPath(slug)}${kind}.csv`, {
    query: { days },
    headers: { Accept: 'text/csv, application/json' },
    bearer: accessToken,
  });
  const fallback = `${slug}-${kind}-${days}d.csv`;
  return { blob: await response.blob(), fileName: fileNameFromDisposition(response.headers.get('content-disposition')) ?? fallback };
}

/** One export at a time per kind; a failure is shown next to the buttons. */
export function useAnalyticsCsvExport(slug: string, days: AnalyticsPeriod) {
  const { getAccessToken } = useAuth();
  const [busy, setBusy] = useState<CsvExportKind | null>(null);
  const [error, setError] = useState<string | null>(null);

  const exportCsv = useCallback(
    async (kind: CsvExportKind) => {
      setBusy(kind);
      setError(null);
      try {
        const { blob, fileName } = await exportAnalyticsCsv(slug, kind, days, await getAccessToken());
        saveBlob(blob, fileName);
      } catch (failure) {
        console.error(`Failed to export the ${kind} CSV of ${slug}`, failure);
        setError(`${CSV_EXPORT_FAILED_MESSAGE}: ${getErrorMessage(failure)}`);
      } finally {
        setBusy(null);
      }
    },
    [slug, days, getAccessToken],
  );

  return { exportCsv, busy, error };
}
