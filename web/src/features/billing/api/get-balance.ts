// GET /api/billing/balance/: the signed-in user's credits, and a creator's earnings.
import { useQuery } from '@tanstack/react-query';
import type { BillingBalance } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { billingKeys } from './billing-keys';

export const useBalance = () =>
  useQuery({ queryKey: billingKeys.balance, queryFn: ({ signal }) => api.get<BillingBalance>('/billing/balance/', { auth: 'required', signal }) });
