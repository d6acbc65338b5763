// POST /api/app/{slug}/payment-methods/: saves the card a confirmed setup intent holds.
import type { PaymentMethod } from '@tollbooth/contract';
import { api } from '@/lib/api-client';

export const savePaymentMethod = (slug: string, setupIntentId: string) =>
  api.post<PaymentMethod>(`/app/${slug}/payment-methods/`, { setup_intent_id: setupIntentId }, { auth: 'required' });
