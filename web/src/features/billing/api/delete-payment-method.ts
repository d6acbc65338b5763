// DELETE /api/app/{slug}/payment-methods/{id}/.
import { useMutation } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { useInvalidateBilling } from './billing-keys';

export function useDeletePaymentMethod(slug: string) {
  const invalidate = useInvalidateBilling(slug);
  return useMutation({ mutationFn: (id: string) => api.delete<null>(`/app/${slug}/payment-methods/${id}/`, { auth: 'required' }), onSettled: invalidate });
}
