// The Stripe product of a plan (made once per plan, by its idempotency key).
import type Stripe from 'stripe';
import type { StripeClient } from './client.ts';

export function createPlanProduct(stripe: StripeClient, plan: { id: string; appId: string; name: string }): Promise<Stripe.Product> {
  return stripe.products.create(
    { name: plan.name, metadata: { tollbooth_package_id: plan.id, tollbooth_app_id: plan.appId } },
    { idempotencyKey: `product:${plan.id}` },
  );
}
