// GET /api/operator/top-costs/?days=: the apps and models that cost the most over the period.
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { OperatorTopCosts } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { type OperatorPeriod, operatorKeys } from './operator-keys';

export function useOperatorTopCosts(days: OperatorPeriod, { enabled = true }: { enabled?: boolean } = {}) {
  return useQuery(
    queryOptions({
      queryKey: operatorKeys.topCosts(days),
      queryFn: ({ signal }) => api.get<OperatorTopCosts>('/operator/top-costs/', { query: { days }, auth: 'required', signal }),
      enabled,
    }),
  );
}
