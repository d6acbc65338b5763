// PATCH /api/app/{slug}/payment-methods/{id}/ with is_default: the card subscriptions are charged to.
import { useMutation } from '@tanstack/react-query';
import type { PaymentMethod } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { useInvalidateBilling } from './billing-keys';

export function useMakeDefaultPaymentMethod(slug: string) {
  const invalidate = useInvalidateBilling(slug);
  return useMutation({
    mutationFn: (id: string) => api.patch<PaymentMethod>(`/app/${slug}/payment-methods/${id}/`, { is_default: true }, { auth: 'required' }),
    onSettled: invalidate,
  });
}
