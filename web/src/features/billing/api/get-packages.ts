// GET /api/app/{slug}/packages/: the app's plans.
import { useQuery } from '@tanstack/react-query';
import type { Package } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { billingKeys } from './billing-keys';

export const usePackages = (slug: string) =>
  useQuery({ queryKey: billingKeys.packages(slug), queryFn: ({ signal }) => api.get<Package[]>(`/app/${slug}/packages/`, { auth: 'required', signal }) });
