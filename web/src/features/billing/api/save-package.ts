// POST /api/app/{slug}/packages/ (a new plan) and PATCH /api/app/{slug}/packages/{id}/ (the owner's plan editor).
import { useMutation } from '@tanstack/react-query';
import type { Package, PackageCreate, PackageUpdate } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { useInvalidateBilling } from './billing-keys';

export function useSavePackage(slug: string) {
  const invalidate = useInvalidateBilling(slug);
  return useMutation({
    mutationFn: ({ id, body }: { id: string | null; body: PackageCreate | PackageUpdate }) =>
      id
        ? api.patch<Package>(`/app/${slug}/packages/${id}/`, body, { auth: 'required' })
        : api.post<Package>(`/app/${slug}/packages/`, body, { auth: 'required' }),
    onSettled: invalidate,
  });
}
