// POST /api/app/{slug}/subscriptions/{id}/cancel/.
import { useMutation } from '@tanstack/react-query';
import type { Subscription } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { useInvalidateBilling } from './billing-keys';

export function useCancelSubscription(slug: string) {
  const invalidate = useInvalidateBilling(slug);
  return useMutation({
    mutationFn: (id: string) => api.post<Subscription>(`/app/${slug}/subscriptions/${id}/cancel/`, undefined, { auth: 'required' }),
    onSettled: invalidate,
  });
}
