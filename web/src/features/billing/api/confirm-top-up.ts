// POST /api/billing/top-ups/confirm/: credits the top-up its confirmed payment intent paid for.
import type { TopUpResult } from '@tollbooth/contract';
import { api } from '@/lib/api-client';

export const confirmTopUp = (paymentIntentId: string) =>
  api.post<TopUpResult>('/billing/top-ups/confirm/', { payment_intent_id: paymentIntentId }, { auth: 'required' });
