// PATCH /api/billing/payouts/settings/: automatic payouts on a schedule, or only when asked.
import type { PayoutSchedule, PayoutsOverview } from '@tollbooth/contract';
import { api } from '@/lib/api-client';

export const setPayoutSchedule = (schedule: PayoutSchedule) => api.patch<PayoutsOverview>('/billing/payouts/settings/', { schedule }, { auth: 'required' });
