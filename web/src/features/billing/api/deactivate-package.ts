// POST /api/app/{slug}/packages/{id}/deactivate/: a plan no longer offered.
import { useMutation } from '@tanstack/react-query';
import type { Package } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { useInvalidateBilling } from './billing-keys';

export function useDeactivatePackage(slug: string) {
  const invalidate = useInvalidateBilling(slug);
  return useMutation({
    mutationFn: (id: string) => api.post<Package>(`/app/${slug}/packages/${id}/deactivate/`, undefined, { auth: 'required' }),
    onSettled: invalidate,
  });
}
