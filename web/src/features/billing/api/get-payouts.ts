// GET /api/billing/payouts/: a creator's connected Stripe account, earnings by state and payouts (issue 23).
import { useQuery } from '@tanstack/react-query';
import type { PayoutsOverview } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { payoutsKey } from './billing-keys';

export const usePayouts = () =>
  useQuery({ queryKey: payoutsKey, queryFn: ({ signal }) => api.get<PayoutsOverview>('/billing/payouts/', { auth: 'required', signal }) });
