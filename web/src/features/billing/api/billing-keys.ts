// The query keys of the billing feature: an app's plans, subscriptions and payment methods, the
// signed-in user's balance and ledger, and a creator's payouts (issue 23).
import { useQueryClient } from '@tanstack/react-query';

export const billingKeys = {
  all: (slug: string) => ['billing', slug] as const,
  packages: (slug: string) => ['billing', slug, 'packages'] as const,
  subscriptions: (slug: string) => ['billing', slug, 'subscriptions'] as const,
  paymentMethods: (slug: string) => ['billing', slug, 'payment-methods'] as const,
  balance: ['billing-balance'] as const,
  ledger: ['billing-ledger'] as const,
};

export const payoutsKey = ['billing-payouts'] as const;

/** After a change to an app's plans, subscriptions or payment methods: all of that app's billing is read again. */
export function useInvalidateBilling(slug: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: billingKeys.all(slug) });
}
