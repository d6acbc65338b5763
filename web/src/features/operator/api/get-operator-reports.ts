// GET /api/operator/overview/?days= (the platform's money over the period) and
// GET /api/operator/top-costs/?days= (the apps and models that cost the most over the period).
import { useQuery } from '@tanstack/react-query';
import type { OperatorOverview, OperatorTopCosts } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { type OperatorPeriod, operatorKeys } from './operator-keys';

function useOperatorReport<Report>(key: 'overview' | 'topCosts', path: string, days: OperatorPeriod, enabled: boolean) {
  return useQuery({
    queryKey: operatorKeys[key](days),
    queryFn: ({ signal }) => api.get<Report>(path, { query: { days }, auth: 'required', signal }),
    enabled,
  });
}

export function useOperatorOverview(days: OperatorPeriod, { enabled = true }: { enabled?: boolean } = {}) {
  return useOperatorReport<OperatorOverview>('overview', '/operator/overview/', days, enabled);
}

export function useOperatorTopCosts(days: OperatorPeriod, { enabled = true }: { enabled?: boolean } = {}) {
  return useOperatorReport<OperatorTopCosts>('topCosts', '/operator/top-costs/', days, enabled);
}
