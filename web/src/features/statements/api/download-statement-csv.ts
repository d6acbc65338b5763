// GET /api/billing/statements/{month}/csv/?role=: the statement as CSV (text/csv, read as a Blob
// through apiFetch and saved as a download).
import type { StatementRole } from '@tollbooth/contract';
import { apiFetch } from '@/lib/api-client';

/** The file name from `attachment; filename="x.csv"`, or null. */
function fileNameFromDisposition(header: string | null): string | null {
  const match = header ? /filename="?([^";]+)"?/i.exec(header) : null;
  return match?.[1] ?? null;
}

export async function downloadStatementCsv(month: string, role: StatementRole): Promise<{ blob: Blob; fileName: string }> {
  const response = await apiFetch(`/billing/statements/${month}/csv/`, {
    auth: 'required',
    query: { role },
    headers: { Accept: 'text/csv, application/json' },
  });
  return { blob: await response.blob(), fileName: fileNameFromDisposition(response.headers.get('content-disposition')) ?? `statement-${month}-${role}.csv` };
}
