// GET /api/app/{slug}/payment-methods/: the signed-in user's saved cards.
import { useQuery } from '@tanstack/react-query';
import type { PaymentMethod } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { billingKeys } from './billing-keys';

export const usePaymentMethods = (slug: string) =>
  useQuery({
    queryKey: billingKeys.paymentMethods(slug),
    queryFn: ({ signal }) => api.get<PaymentMethod[]>(`/app/${slug}/payment-methods/`, { auth: 'required', signal }),
  });
