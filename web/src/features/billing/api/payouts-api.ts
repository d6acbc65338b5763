// Creators get paid (issue 23): the connected Stripe account, earnings by state and payouts.
import { useQuery } from '@tanstack/react-query';
import type { ConnectLink, PayoutSchedule, PayoutsOverview, WithdrawResult } from '@tollbooth/contract';
import { api } from '@/lib/api-client';

const auth = { auth: 'required' as const };
export const payoutsKey = ['billing-payouts'] as const;

export const usePayouts = () => useQuery({ queryKey: payoutsKey, queryFn: ({ signal }) => api.get<PayoutsOverview>('/billing/payouts/', { ...auth, signal }) });
export const startOnboarding = () => api.post<ConnectLink>('/billing/payouts/connect/', undefined, auth);
export const refreshAccount = () => api.post<PayoutsOverview>('/billing/payouts/refresh/', undefined, auth);
export const disconnectAccount = () => api.delete<PayoutsOverview>('/billing/payouts/connect/', auth);
export const setPayoutSchedule = (schedule: PayoutSchedule) => api.patch<PayoutsOverview>('/billing/payouts/settings/', { schedule }, auth);
export const withdrawNow = () => api.post<WithdrawResult>('/billing/payouts/withdraw/', undefined, auth);
