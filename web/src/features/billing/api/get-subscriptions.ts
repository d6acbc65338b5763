// GET /api/app/{slug}/subscriptions/: the signed-in user's subscriptions to the app.
import { useQuery } from '@tanstack/react-query';
import type { Subscription } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { billingKeys } from './billing-keys';

export const useSubscriptions = (slug: string) =>
  useQuery({
    queryKey: billingKeys.subscriptions(slug),
    queryFn: ({ signal }) => api.get<Subscription[]>(`/app/${slug}/subscriptions/`, { auth: 'required', signal }),
  });
