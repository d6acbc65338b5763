// POST /api/billing/payouts/connect/: the Stripe onboarding link of the creator's connected account.
import type { ConnectLink } from '@tollbooth/contract';
import { api } from '@/lib/api-client';

export const startOnboarding = () => api.post<ConnectLink>('/billing/payouts/connect/', undefined, { auth: 'required' });
