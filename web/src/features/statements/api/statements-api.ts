// Monthly statements (issue 23 item 6): the months with activity, a month's statement as a caller
// or a creator, and its CSV (text/csv, read as a Blob through apiFetch and saved as a download).
import { useQuery } from '@tanstack/react-query';
import type { Statement, StatementMonths, StatementRole } from '@tollbooth/contract';
import { api, apiFetch } from '@/lib/api-client';

const auth = { auth: 'required' as const };

export const statementKeys = {
  months: ['billing-statements'] as const,
  month: (month: string, role: StatementRole) => ['billing-statements', month, role] as const,
};

export const useStatementMonths = () =>
  useQuery({ queryKey: statementKeys.months, queryFn: ({ signal }) => api.get<StatementMonths>('/billing/statements/', { ...auth, signal }) });

export const useStatement = (month: string | null, role: StatementRole) =>
  useQuery({
    queryKey: statementKeys.month(month ?? '', role),
    enabled: month !== null,
    queryFn: ({ signal }) => api.get<Statement>(`/billing/statements/${month}/`, { ...auth, signal, query: { role } }),
  });

/** The file name from `attachment; filename="x.csv"`, or null. */
function fileNameFromDisposition(header: string | null): string | null {
  const match = header ? /filename="?([^";]+)"?/i.exec(header) : null;
  return match?.[1] ?? null;
}

export async function downloadStatementCsv(month: string, role: StatementRole): Promise<{ blob: Blob; fileName: string }> {
  const response = await apiFetch(`/billing/statements/${month}/csv/`, { ...auth, query: { role }, headers: { Accept: 'text/csv, application/json' } });
  return { blob: await response.blob(), fileName: fileNameFromDisposition(response.headers.get('content-disposition')) ?? `statement-${month}-${role}.csv` };
}
