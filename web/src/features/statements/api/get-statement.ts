// GET /api/billing/statements/{month}/?role=: a month's statement as a caller or a creator.
import { useQuery } from '@tanstack/react-query';
import type { Statement, StatementRole } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { statementKeys } from './statement-keys';

export const useStatement = (month: string | null, role: StatementRole) =>
  useQuery({
    queryKey: statementKeys.month(month ?? '', role),
    enabled: month !== null,
    queryFn: ({ signal }) => api.get<Statement>(`/billing/statements/${month}/`, { auth: 'required', signal, query: { role } }),
  });
