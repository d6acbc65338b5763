// Billing & Subscriptions (/applications/{slug}/billing), as the spec describes it: current
// subscriptions, available plans, payment methods, the Subscribe and Add Payment Method modals
// (Stripe Elements), and for the app's owner a plan editor with subscriber counts.

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type Application, formatMicros, type Package } from '@tollbooth/contract';
import { useCallback, useState } from 'react';
import { Link, useParams } from 'react-router';
import { ErrorBox } from '@/components/ui/error-box';
import { PageSpinner } from '@/components/ui/spinner';
import { primaryButton, secondaryButton, textLink } from '@/components/ui/styles';
import { api } from '@/lib/api-client';
import { formatDate } from '@/lib/format';
import { useRuntimeConfig } from '@/lib/runtime-config';
import { billingKeys } from '../api/billing-keys';
import { useCancelSubscription } from '../api/cancel-subscription';
import { useDeletePaymentMethod } from '../api/delete-payment-method';
import { usePackages } from '../api/get-packages';
import { usePaymentMethods } from '../api/get-payment-methods';
import { useSubscriptions } from '../api/get-subscriptions';
import { useMakeDefaultPaymentMethod } from '../api/make-default-payment-method';
import { subscribe } from '../api/subscribe';
import { Badge, formatExpiry, StripeNotConfigured, subscriptionTone } from '../components/bits';
import { AddPaymentMethodModal, SubscribeModal } from '../components/payment-forms';
import { PlanEditor } from '../components/plan-editor';
import { CANCEL_FAILED, DELETE_FAILED, LOAD_FAILED, MAKE_DEFAULT_FAILED, SUBSCRIBE_FAILED } from '../lib/messages';
import { planPrice } from '../lib/plan-price';

const pageClass = 'mx-auto max-w-7xl px-4 py-8 sm:px-6 lg:px-8';
const card = 'rounded-lg bg-white p-6 shadow-sm ring-1 ring-gray-200';

export function BillingPage() {
  const { appSlug = '' } = useParams();
  const slug = appSlug;
  const config = useRuntimeConfig();
  const queryClient = useQueryClient();
  const app = useQuery({ queryKey: ['billing', slug, 'app'], queryFn: ({ signal }) => api.get<Application>(`/app/${slug}/`, { auth: 'required', signal }) });
  const packages = usePackages(slug);
  const subscriptions = useSubscriptions(slug);
  const methods = usePaymentMethods(slug);
  const cancel = useCancelSubscription(slug);
  const remove = useDeletePaymentMethod(slug);
  const makeDefault = useMakeDefaultPaymentMethod(slug);
  const [defaulting, setDefaulting] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [subscribing, setSubscribing] = useState<Package | null>(null);
  const [busyPlan, setBusyPlan] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<string | null>(null);
  const refresh = useCallback(async () => {
    await queryClient.invalidateQueries({ queryKey: billingKeys.all(slug) });
    // Stripe's webhook may land a moment after the browser's confirmation: look again shortly.
    for (const delay of [1500, 5000]) window.setTimeout(() => void queryClient.invalidateQueries({ queryKey: billingKeys.all(slug) }), delay);
  }, [queryClient, slug]);
  const fail = useCallback((message: string) => setError(message), []);

  if (packages.isPending || subscriptions.isPending || methods.isPending) return <PageSpinner message="Loading billing data..." />;
  const loadFailed = packages.isError || subscriptions.isError || methods.isError;

  async function choosePlan(plan: Package) {
    setError(null);
    if (plan.price_cents > 0) return setSubscribing(plan);
    // A free plan needs no card and no Stripe.
    setBusyPlan(plan.id);
    try {
      await subscribe(slug, plan.id);
      await refresh();
    } catch {
      setError(SUBSCRIBE_FAILED);
    } finally {
      setBusyPlan(null);
    }
  }

  async function removeMethod(id: string) {
    setError(null);
    setRemoving(id);
    try {
      await remove.mutateAsync(id);
    } catch (cause) {
      console.error('Failed to delete payment method', cause);
      setError(DELETE_FAILED);
    } finally {
      setRemoving(null);
      await refresh();
    }
  }

  async function makeDefaultMethod(id: string) {
    setError(null);
    setDefaulting(id);
    try {
      await makeDefault.mutateAsync(id);
    } catch (cause) {
      console.error('Failed to make the payment method the default', cause);
      setError(MAKE_DEFAULT_FAILED);
    } finally {
      setDefaulting(null);
    }
  }

  return (
    <div className={pageClass}>
      <Link to={`/applications/${slug}`} className={`${textLink} text-sm`}>
        ← Back to application
      </Link>
      <h1 className="mt-4 text-2xl font-bold tracking-tight text-gray-900 sm:text-3xl">Billing &amp; Subscriptions</h1>
      <p className="mt-1 text-sm text-gray-600">Manage your subscriptions and payment methods for this application.</p>

      <div className="mt-6 space-y-4">
        {loadFailed ? <ErrorBox message={LOAD_FAILED} /> : null}
        {error ? <ErrorBox message={error} /> : null}
        {!config.stripe_publishable_key ? <StripeNotConfigured /> : null}
      </div>

      <section className={`${card} mt-6`} aria-labelledby="subs-title">
        <h2 id="subs-title" className="text-lg font-semibold text-gray-900">
          Current Subscriptions
        </h2>
        {(subscriptions.data ?? []).length === 0 ? (
          <div className="py-6 text-center">
            <p className="font-medium text-gray-900">No active subscriptions</p>
            <p className="text-sm text-gray-500">Choose a plan below to get started</p>
          </div>
        ) : (
          <ul className="mt-4 divide-y divide-gray-200">
            {(subscriptions.data ?? []).map((sub) => (
              <li key={sub.id} className="flex flex-wrap items-center justify-between gap-3 py-3" data-testid="subscription">
                <div>
                  <div className="flex items-center gap-2">
                    <span className="font-medium text-gray-900">{sub.package_name}</span>
                    <Badge tone={subscriptionTone(sub.status)}>{sub.status}</Badge>
                    {sub.cancel_at_period_end ? <Badge tone="yellow">Canceling</Badge> : null}
                  </div>
                  <p className="text-sm text-gray-500">
                    Current period ends {formatDate(sub.current_period_end)} · {sub.days_remaining} days remaining
                    {sub.included_calls > 0 ? ` · ${sub.included_calls_used} of ${sub.included_calls} included calls used` : ''}
                    {sub.included_usage_micros
                      ? ` · ${formatMicros(sub.usage_used_micros ?? 0)} of ${formatMicros(sub.included_usage_micros)} included usage used`
                      : ''}
                  </p>
                </div>
                {sub.status === 'active' && !sub.cancel_at_period_end ? (
                  <button
                    type="button"
                    className={secondaryButton}
                    disabled={cancel.isPending}
                    onClick={() => {
                      setError(null);
                      cancel.mutate(sub.id, { onError: () => setError(CANCEL_FAILED) });
                    }}
                  >
                    Cancel
                  </button>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </section>

      <section className="mt-8" aria-labelledby="plans-title">
        <h2 id="plans-title" className="text-lg font-semibold text-gray-900">
          Available Plans
        </h2>
        <div className="mt-4 grid gap-6 md:grid-cols-3">
          {(packages.data ?? []).map((plan) => (
            <div key={plan.id} className={`${card} flex flex-col`} data-testid="plan">
              <div className="flex items-center justify-between">
                <h3 className="text-base font-semibold text-gray-900">{plan.name}</h3>
                {/pro/i.test(plan.name) ? <Badge tone="indigo">Popular</Badge> : null}
              </div>
              <p className="mt-2">
                <span className="text-3xl font-bold text-gray-900">{planPrice(plan.price, plan.currency)}</span>{' '}
                <span className="text-sm text-gray-500">{plan.currency.toUpperCase()}</span>
              </p>
              <p className="mt-2 text-sm text-gray-600">{plan.description}</p>
              <ul className="mt-3 flex-1 space-y-1 text-sm text-gray-700">
                {Object.entries(plan.features).map(([key, value]) => (
                  <li key={key}>
                    {key}: {value}
                  </li>
                ))}
                {plan.included_calls > 0 ? <li>Included calls per month: {plan.included_calls}</li> : null}
                {plan.included_usage_micros ? <li>Included usage per month: {formatMicros(plan.included_usage_micros)} at the app's rate</li> : null}
              </ul>
              {plan.price_cents > 0 && !config.stripe_publishable_key ? (
                // Without Stripe nobody can pay for a paid plan: not offered, with the reason (issue 25).
                <>
                  <p className="mt-4 text-sm text-yellow-800" data-testid="plan-unavailable-reason">
                    Unavailable: card payments (Stripe) are not configured on this server.
                  </p>
                  <button type="button" className={`${primaryButton} mt-2`} disabled>
                    Not Available
                  </button>
                </>
              ) : (
                <button type="button" className={`${primaryButton} mt-4`} disabled={!plan.is_active || busyPlan === plan.id} onClick={() => choosePlan(plan)}>
                  {!plan.is_active ? 'Not Available' : busyPlan === plan.id || subscribing?.id === plan.id ? 'Processing...' : 'Subscribe'}
                </button>
              )}
            </div>
          ))}
        </div>
      </section>

      <section className={`${card} mt-8`} aria-labelledby="methods-title">
        <div className="flex items-center justify-between">
          <h2 id="methods-title" className="text-lg font-semibold text-gray-900">
            Payment Methods
          </h2>
          <button
            type="button"
            className={secondaryButton}
            disabled={adding}
            onClick={() => {
              setError(null);
              setAdding(true);
            }}
          >
            {adding ? 'Setting up...' : 'Add Payment Method'}
          </button>
        </div>
        {(methods.data ?? []).length === 0 ? (
          <div className="py-6 text-center">
            <p className="font-medium text-gray-900">No payment methods added</p>
            <p className="text-sm text-gray-500">Add a payment method to subscribe to plans</p>
          </div>
        ) : (
          <ul className="mt-4 divide-y divide-gray-200">
            {(methods.data ?? []).map((method) => (
              <li key={method.id} className="flex items-center justify-between py-3" data-testid="payment-method">
                <div className="flex items-center gap-3">
                  <span className="font-medium text-gray-900">{method.card_brand.toUpperCase()}</span>
                  <span className="text-gray-700">•••• {method.card_last4}</span>
                  <span className="text-sm text-gray-500">{formatExpiry(method.card_exp_month, method.card_exp_year)}</span>
                  {method.is_default ? <Badge tone="green">Default</Badge> : null}
                </div>
                <div className="flex items-center gap-4">
                  {method.is_default ? null : (
                    <button
                      type="button"
                      className="text-sm font-medium text-indigo-600 hover:text-indigo-500"
                      disabled={defaulting === method.id}
                      onClick={() => makeDefaultMethod(method.id)}
                    >
                      {defaulting === method.id ? 'Saving...' : 'Make default'}
                    </button>
                  )}
                  <button
                    type="button"
                    className="text-sm font-medium text-red-600 hover:text-red-500"
                    disabled={removing === method.id}
                    onClick={() => removeMethod(method.id)}
                  >
                    {removing === method.id ? 'Removing...' : 'Remove'}
                  </button>
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>

      {app.data?.is_owner ? <PlanEditor slug={slug} plans={packages.data ?? []} /> : null}

      {subscribing ? (
        <SubscribeModal
          slug={slug}
          plan={subscribing}
          onClose={() => setSubscribing(null)}
          onError={(message) => {
            setSubscribing(null);
            fail(message);
          }}
          onDone={() => {
            setSubscribing(null);
            void refresh();
          }}
        />
      ) : null}
      {adding ? (
        <AddPaymentMethodModal
          slug={slug}
          onClose={() => setAdding(false)}
          onError={(message) => {
            setAdding(false);
            fail(message);
          }}
          onDone={() => {
            setAdding(false);
            void refresh();
          }}
        />
      ) : null}
    </div>
  );
}
