// POST /api/app/{slug}/subscriptions/: subscribes to a plan (its first payment confirmed first, create-payment-intent.ts).
import type { Subscription } from '@tollbooth/contract';
import { api } from '@/lib/api-client';

export const subscribe = (slug: string, packageId: string) =>
  api.post<Subscription>(`/app/${slug}/subscriptions/`, { package_id: packageId }, { auth: 'required' });
