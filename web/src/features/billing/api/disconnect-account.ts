// DELETE /api/billing/payouts/connect/: forgets the creator's connected account.
import type { PayoutsOverview } from '@tollbooth/contract';
import { api } from '@/lib/api-client';

export const disconnectAccount = () => api.delete<PayoutsOverview>('/billing/payouts/connect/', { auth: 'required' });
