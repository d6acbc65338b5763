// POST /api/billing/payouts/refresh/: reads the connected account's state from Stripe again.
import type { PayoutsOverview } from '@tollbooth/contract';
import { api } from '@/lib/api-client';

export const refreshAccount = () => api.post<PayoutsOverview>('/billing/payouts/refresh/', undefined, { auth: 'required' });
