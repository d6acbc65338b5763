// The two Stripe Elements forms: Subscribe (the plan's first payment) and Add Payment Method (a
// SetupIntent). Both get their client secret from the spec's create-payment-intent call and
// confirm in the browser with Stripe.js; 3-D Secure returns through /billing/success.

import { AddressElement, Elements, PaymentElement } from '@stripe/react-stripe-js';
import type { Package } from '@tollbooth/contract';
import { useEffect, useState } from 'react';
import { PlanFeatures } from '@/components/ui/plan-features';
import { primaryButton, secondaryButton } from '@/components/ui/styles';
import { getErrorMessage } from '@/lib/errors';
import { useRuntimeConfig } from '@/lib/runtime-config';
import { createPaymentIntent } from '../api/create-payment-intent';
import { savePaymentMethod } from '../api/save-payment-method';
import { SETUP_FAILED, SUBSCRIBE_FAILED } from '../lib/messages';
import { planPrice } from '../lib/plan-price';
import { ALLOWED_BILLING_COUNTRIES, PAYMENT_METHOD_FAILED, PAYMENT_METHOD_ORDER, PAYMENT_NOT_COMPLETED, returnUrl, stripePromise } from '../lib/stripe';
import { useStripeSubmit } from '../lib/use-stripe-submit';
import { Modal, StripeNotConfigured } from './bits';

function useClientSecret(slug: string, body: { amount: number; currency: string; package_id?: string }, enabled: boolean) {
  const [state, setState] = useState<{ secret: string | null; error: string | null }>({ secret: null, error: null });
  const key = JSON.stringify(body);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the body is keyed by its JSON
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    createPaymentIntent(slug, body).then(
      (answer) => live && setState({ secret: answer.client_secret, error: null }),
      (error: unknown) => live && setState({ secret: null, error: getErrorMessage(error) }),
    );
    return () => {
      live = false;
    };
  }, [slug, key, enabled]);
  return state;
}

const fieldsOptions = { paymentMethodOrder: PAYMENT_METHOD_ORDER };
const addressOptions = { mode: 'billing' as const, allowedCountries: ALLOWED_BILLING_COUNTRIES };

/** The card (or other method) and the billing address, as both forms ask for them. */
function PaymentAndAddress() {
  return (
    <>
      <PaymentElement options={fieldsOptions} />
      <div>
        <h3 className="text-sm font-medium text-gray-900">Billing address</h3>
        <AddressElement options={addressOptions} />
      </div>
    </>
  );
}

function SubscribeForm({
  slug,
  plan,
  onDone,
  onCancel,
  onError,
}: {
  slug: string;
  plan: Package;
  onDone: () => void;
  onCancel: () => void;
  onError: (message: string) => void;
}) {
  const { stripe, busy, submit } = useStripeSubmit(onError, async (stripe, elements) => {
    const { error, paymentIntent } = await stripe.confirmPayment({ elements, redirect: 'if_required', confirmParams: { return_url: returnUrl(slug) } });
    if (error) return onError(error.message ?? PAYMENT_NOT_COMPLETED);
    if (paymentIntent?.status !== 'succeeded') return onError(PAYMENT_NOT_COMPLETED);
    onDone();
  });
  return (
    <form onSubmit={submit} className="space-y-4">
      <PaymentAndAddress />
      <div className="flex justify-end gap-3">
        <button type="button" className={secondaryButton} onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className={primaryButton} disabled={busy || !stripe}>
          {busy ? 'Processing...' : `Subscribe for ${planPrice(plan.price, plan.currency)}/${plan.currency}`}
        </button>
      </div>
      <p className="text-xs text-gray-500">By subscribing you agree to the terms of service. You can cancel anytime.</p>
    </form>
  );
}

export function SubscribeModal({
  slug,
  plan,
  onClose,
  onDone,
  onError,
}: {
  slug: string;
  plan: Package;
  onClose: () => void;
  onDone: () => void;
  onError: (message: string) => void;
}) {
  const { stripe_publishable_key: publishableKey } = useRuntimeConfig();
  const { secret, error } = useClientSecret(
    slug,
    { amount: plan.price_cents, currency: plan.currency.toLowerCase(), package_id: plan.id },
    Boolean(publishableKey),
  );
  useEffect(() => {
    if (error) onError(SUBSCRIBE_FAILED);
  }, [error, onError]);
  return (
    <Modal title={`Subscribe to ${plan.name}`} onClose={onClose}>
      <dl className="mb-4 grid grid-cols-2 gap-2 text-sm">
        <dt className="text-gray-500">Package ID</dt>
        <dd className="font-mono text-xs break-all text-gray-900">{plan.id}</dd>
        <dt className="text-gray-500">Package</dt>
        <dd className="text-gray-900">{plan.name}</dd>
        <dt className="text-gray-500">Price</dt>
        <dd className="text-gray-900">{planPrice(plan.price, plan.currency)}</dd>
        <dt className="text-gray-500">Currency</dt>
        <dd className="text-gray-900">{plan.currency.toUpperCase()}</dd>
      </dl>
      <PlanFeatures features={plan.features} className="mb-4 list-disc pl-5 text-sm text-gray-700" />
      {!publishableKey ? (
        <StripeNotConfigured />
      ) : secret ? (
        <Elements stripe={stripePromise(publishableKey)} options={{ clientSecret: secret }}>
          <SubscribeForm slug={slug} plan={plan} onDone={onDone} onCancel={onClose} onError={onError} />
        </Elements>
      ) : error ? null : (
        <p className="text-sm text-gray-500">Preparing the payment form…</p>
      )}
    </Modal>
  );
}

function SetupForm({ slug, onDone, onError }: { slug: string; onDone: () => void; onError: (message: string) => void }) {
  const { stripe, busy, submit } = useStripeSubmit(onError, async (stripe, elements) => {
    const { error, setupIntent } = await stripe.confirmSetup({ elements, redirect: 'if_required', confirmParams: { return_url: returnUrl(slug) } });
    if (error) return onError(error.message ?? PAYMENT_METHOD_FAILED);
    if (setupIntent?.status !== 'succeeded' || !setupIntent.payment_method) return onError(PAYMENT_METHOD_FAILED);
    await savePaymentMethod(slug, setupIntent.id);
    onDone();
  });
  return (
    <form onSubmit={submit} className="space-y-4">
      <PaymentAndAddress />
      <div className="flex justify-end">
        <button type="submit" className={primaryButton} disabled={busy || !stripe}>
          {busy ? 'Processing...' : 'Add Payment Method'}
        </button>
      </div>
    </form>
  );
}

export function AddPaymentMethodModal({
  slug,
  onClose,
  onDone,
  onError,
}: {
  slug: string;
  onClose: () => void;
  onDone: () => void;
  onError: (message: string) => void;
}) {
  const { stripe_publishable_key: publishableKey } = useRuntimeConfig();
  const { secret, error } = useClientSecret(slug, { amount: 0, currency: 'usd' }, Boolean(publishableKey));
  useEffect(() => {
    if (error) onError(SETUP_FAILED);
  }, [error, onError]);
  return (
    <Modal title="Add Payment Method" onClose={onClose}>
      {!publishableKey ? (
        <StripeNotConfigured />
      ) : secret ? (
        <Elements stripe={stripePromise(publishableKey)} options={{ clientSecret: secret }}>
          <SetupForm slug={slug} onDone={onDone} onError={onError} />
        </Elements>
      ) : error ? null : (
        <p className="text-sm text-gray-500">Preparing the payment form…</p>
      )}
    </Modal>
  );
}
