import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { CostEstimate, CostEstimateRequest } from '@tollbooth/contract';
import { api } from '@/lib/api-client';

/** POST /api/prompt/cost-estimate/ — what one call of these settings costs upstream; nothing is saved. */
export function getCostEstimate(body: CostEstimateRequest): Promise<CostEstimate> {
  return api.post<CostEstimate>('/prompt/cost-estimate/', body, { auth: 'required' });
}

export const costEstimateKey = (body: CostEstimateRequest) => ['prompt-cost-estimate', body] as const;

/**
 * The estimate of the settings as they are (debounced by the caller): the form's panel and its save
 * warning read the same query. While new settings load, the previous figures stay on screen.
 */
export function useCostEstimate(body: CostEstimateRequest | null) {
  return useQuery({
    queryKey: costEstimateKey(body ?? ({} as CostEstimateRequest)),
    queryFn: () => getCostEstimate(body!),
    enabled: body !== null,
    placeholderData: keepPreviousData,
    staleTime: 30_000,
    retry: false,
  });
}
