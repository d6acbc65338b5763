// POST /api/app/{slug}/create-payment-intent/ (the spec's name).
import type { PaymentIntentResponse } from '@tollbooth/contract';
import { api } from '@/lib/api-client';

/** Amount 0 for a card setup; price × 100 with the plan for a subscription's first payment. */
export const createPaymentIntent = (slug: string, body: { amount: number; currency: string; package_id?: string }) =>
  api.post<PaymentIntentResponse>(`/app/${slug}/create-payment-intent/`, body, { auth: 'required' });
