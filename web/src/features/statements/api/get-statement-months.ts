// GET /api/billing/statements/: the months with activity, and the current one.
import { useQuery } from '@tanstack/react-query';
import type { StatementMonths } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { statementKeys } from './statement-keys';

export const useStatementMonths = () =>
  useQuery({
    queryKey: statementKeys.months,
    queryFn: ({ signal }) => api.get<StatementMonths>('/billing/statements/', { auth: 'required', signal }),
  });
