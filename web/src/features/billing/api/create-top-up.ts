// POST /api/billing/top-ups/: a credit top-up's payment intent.
import type { TopUp } from '@tollbooth/contract';
import { api } from '@/lib/api-client';

export const createTopUp = (amountCents: number) => api.post<TopUp>('/billing/top-ups/', { amount_cents: amountCents }, { auth: 'required' });
