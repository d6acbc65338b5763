// /billing/success: where Stripe sends the browser back (3-D Secure, redirecting methods). Reads
// payment_intent / setup_intent and their client secrets from the query, asks Stripe.js for the
// real outcome, saves a card or credits a top-up, and links back to the app's billing page.
import { useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { textLink } from '@/components/ui/styles';
import { getErrorMessage } from '@/lib/errors';
import { useRuntimeConfig } from '@/lib/runtime-config';
import { confirmTopUp } from '../api/confirm-top-up';
import { savePaymentMethod } from '../api/save-payment-method';
import { PAYMENT_NOT_COMPLETED, STRIPE_NOT_LOADED, stripePromise } from '../lib/stripe';

type Outcome = { state: 'checking' } | { state: 'succeeded'; message: string } | { state: 'failed'; message: string };

export function BillingSuccessPage() {
  const [params] = useSearchParams();
  const { stripe_publishable_key: publishableKey } = useRuntimeConfig();
  const [outcome, setOutcome] = useState<Outcome>({ state: 'checking' });
  const slug = params.get('app');
  const paymentSecret = params.get('payment_intent_client_secret');
  const setupSecret = params.get('setup_intent_client_secret');
  const kind = params.get('kind');

  useEffect(() => {
    let live = true;
    const settle = (next: Outcome) => live && setOutcome(next);
    (async () => {
      if (!publishableKey) return settle({ state: 'failed', message: 'Stripe is not configured. Payment functionality is not available.' });
      const stripe = await stripePromise(publishableKey);
      if (!stripe) return settle({ state: 'failed', message: STRIPE_NOT_LOADED });
      if (setupSecret) {
        const { setupIntent, error } = await stripe.retrieveSetupIntent(setupSecret);
        if (error || setupIntent?.status !== 'succeeded') return settle({ state: 'failed', message: error?.message ?? 'Failed to create payment method' });
        if (slug) await savePaymentMethod(slug, setupIntent.id);
        return settle({ state: 'succeeded', message: 'Your payment method was saved.' });
      }
      if (paymentSecret) {
        const { paymentIntent, error } = await stripe.retrievePaymentIntent(paymentSecret);
        if (error || paymentIntent?.status !== 'succeeded') return settle({ state: 'failed', message: error?.message ?? PAYMENT_NOT_COMPLETED });
        if (kind === 'top-up') await confirmTopUp(paymentIntent.id);
        return settle({ state: 'succeeded', message: kind === 'top-up' ? 'Your credits were added.' : 'Your payment succeeded. Your subscription is active.' });
      }
      settle({ state: 'failed', message: PAYMENT_NOT_COMPLETED });
    })().catch((error: unknown) => settle({ state: 'failed', message: getErrorMessage(error) }));
    return () => {
      live = false;
    };
  }, [publishableKey, setupSecret, paymentSecret, slug, kind]);

  return (
    <div className="mx-auto max-w-2xl px-4 py-16 text-center">
      <h1 className="text-2xl font-bold text-gray-900">{outcome.state === 'failed' ? 'Payment not completed' : 'Payment Complete'}</h1>
      <p className="mt-4 text-gray-700" role="status">
        {outcome.state === 'checking' ? 'Checking your payment…' : outcome.message}
      </p>
      <Link to={slug ? `/applications/${slug}/billing` : '/money'} className={`${textLink} mt-6 inline-block`}>
        {slug ? 'Back to billing' : 'Back to Money'}
      </Link>
    </div>
  );
}
