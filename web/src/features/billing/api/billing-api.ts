// The billing calls of the spec (plans, subscriptions, payment methods, create-payment-intent),
// the owner's plan editor, balances, the ledger and credit top-ups.

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  BillingBalance,
  LedgerPage,
  Package,
  PackageCreate,
  PackageUpdate,
  PaymentIntentResponse,
  PaymentMethod,
  Subscription,
  TopUp,
  TopUpResult,
} from '@tollbooth/contract';
import { api } from '@/lib/api-client';

const auth = { auth: 'required' as const };
export const billingKeys = {
  all: (slug: string) => ['billing', slug] as const,
  packages: (slug: string) => ['billing', slug, 'packages'] as const,
  subscriptions: (slug: string) => ['billing', slug, 'subscriptions'] as const,
  paymentMethods: (slug: string) => ['billing', slug, 'payment-methods'] as const,
  balance: ['billing-balance'] as const,
  ledger: ['billing-ledger'] as const,
};

export const usePackages = (slug: string) =>
  useQuery({ queryKey: billingKeys.packages(slug), queryFn: ({ signal }) => api.get<Package[]>(`/app/${slug}/packages/`, { ...auth, signal }) });
export const useSubscriptions = (slug: string) =>
  useQuery({ queryKey: billingKeys.subscriptions(slug), queryFn: ({ signal }) => api.get<Subscription[]>(`/app/${slug}/subscriptions/`, { ...auth, signal }) });
export const usePaymentMethods = (slug: string) =>
  useQuery({
    queryKey: billingKeys.paymentMethods(slug),
    queryFn: ({ signal }) => api.get<PaymentMethod[]>(`/app/${slug}/payment-methods/`, { ...auth, signal }),
  });

/** The spec's create-payment-intent: amount 0 for a card setup; price × 100 with the plan for a subscription's first payment. */
export const createPaymentIntent = (slug: string, body: { amount: number; currency: string; package_id?: string }) =>
  api.post<PaymentIntentResponse>(`/app/${slug}/create-payment-intent/`, body, auth);

export const subscribe = (slug: string, packageId: string) => api.post<Subscription>(`/app/${slug}/subscriptions/`, { package_id: packageId }, auth);
export const savePaymentMethod = (slug: string, setupIntentId: string) =>
  api.post<PaymentMethod>(`/app/${slug}/payment-methods/`, { setup_intent_id: setupIntentId }, auth);

function useInvalidate(slug: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: billingKeys.all(slug) });
}

export function useCancelSubscription(slug: string) {
  const invalidate = useInvalidate(slug);
  return useMutation({
    mutationFn: (id: string) => api.post<Subscription>(`/app/${slug}/subscriptions/${id}/cancel/`, undefined, auth),
    onSettled: invalidate,
  });
}
export function useDeletePaymentMethod(slug: string) {
  const invalidate = useInvalidate(slug);
  return useMutation({ mutationFn: (id: string) => api.delete<null>(`/app/${slug}/payment-methods/${id}/`, auth), onSettled: invalidate });
}
export function useMakeDefaultPaymentMethod(slug: string) {
  const invalidate = useInvalidate(slug);
  return useMutation({
    mutationFn: (id: string) => api.patch<PaymentMethod>(`/app/${slug}/payment-methods/${id}/`, { is_default: true }, auth),
    onSettled: invalidate,
  });
}
export function useSavePackage(slug: string) {
  const invalidate = useInvalidate(slug);
  return useMutation({
    mutationFn: ({ id, body }: { id: string | null; body: PackageCreate | PackageUpdate }) =>
      id ? api.patch<Package>(`/app/${slug}/packages/${id}/`, body, auth) : api.post<Package>(`/app/${slug}/packages/`, body, auth),
    onSettled: invalidate,
  });
}
export function useDeactivatePackage(slug: string) {
  const invalidate = useInvalidate(slug);
  return useMutation({ mutationFn: (id: string) => api.post<Package>(`/app/${slug}/packages/${id}/deactivate/`, undefined, auth), onSettled: invalidate });
}

export const useBalance = () =>
  useQuery({ queryKey: billingKeys.balance, queryFn: ({ signal }) => api.get<BillingBalance>('/billing/balance/', { ...auth, signal }) });
export const fetchLedgerPage = (before: string | null, limit = 100) =>
  api.get<LedgerPage>('/billing/ledger/', { ...auth, query: { limit, ...(before ? { before } : {}) } });
export const useLedger = () => useQuery({ queryKey: billingKeys.ledger, queryFn: () => fetchLedgerPage(null) });

export const createTopUp = (amountCents: number) => api.post<TopUp>('/billing/top-ups/', { amount_cents: amountCents }, auth);
export const confirmTopUp = (paymentIntentId: string) => api.post<TopUpResult>('/billing/top-ups/confirm/', { payment_intent_id: paymentIntentId }, auth);
