// GET /api/operator/overview/?days=: the platform's money over the period.
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { OperatorOverview } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { type OperatorPeriod, operatorKeys } from './operator-keys';

export function useOperatorOverview(days: OperatorPeriod, { enabled = true }: { enabled?: boolean } = {}) {
  return useQuery(
    queryOptions({
      queryKey: operatorKeys.overview(days),
      queryFn: ({ signal }) => api.get<OperatorOverview>('/operator/overview/', { query: { days }, auth: 'required', signal }),
      enabled,
    }),
  );
}
