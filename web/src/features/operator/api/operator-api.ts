// The operator's view (GET /api/operator/...): answered only for accounts whose verified email
// ADMIN_EMAILS lists; everyone else gets 404, which the web app reads as "not an operator".
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { OperatorOverview, OperatorTopCosts } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { ApiError } from '@/lib/errors';

export type OperatorPeriod = 7 | 30 | 90;

export const operatorKeys = {
  all: ['operator'] as const,
  access: () => [...operatorKeys.all, 'access'] as const,
  overview: (days: OperatorPeriod) => [...operatorKeys.all, 'overview', days] as const,
  topCosts: (days: OperatorPeriod) => [...operatorKeys.all, 'top-costs', days] as const,
};

/** True for an operator, false for anyone the server answers 404. */
export async function getOperatorAccess(signal?: AbortSignal): Promise<boolean> {
  try {
    await api.get('/operator/access/', { auth: 'required', signal });
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return false;
    throw error;
  }
}

/** Asked once per session: the user menu's Operator link and the page's guard share it. */
export function useOperatorAccess({ enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: operatorKeys.access(),
    queryFn: ({ signal }) => getOperatorAccess(signal),
    enabled,
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
  });
}

export function useOperatorOverview(days: OperatorPeriod, { enabled = true }: { enabled?: boolean } = {}) {
  return useQuery(
    queryOptions({
      queryKey: operatorKeys.overview(days),
      queryFn: ({ signal }) => api.get<OperatorOverview>('/operator/overview/', { query: { days }, auth: 'required', signal }),
      enabled,
    }),
  );
}

export function useOperatorTopCosts(days: OperatorPeriod, { enabled = true }: { enabled?: boolean } = {}) {
  return useQuery(
    queryOptions({
      queryKey: operatorKeys.topCosts(days),
      queryFn: ({ signal }) => api.get<OperatorTopCosts>('/operator/top-costs/', { query: { days }, auth: 'required', signal }),
      enabled,
    }),
  );
}
