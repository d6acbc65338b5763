// The submit of a Stripe Elements form (subscribe, add a card, top up): Stripe.js must have loaded,
// the form is busy while the payment or setup is confirmed, and any failure is told through onError.
import { useElements, useStripe } from '@stripe/react-stripe-js';
import type { Stripe, StripeElements } from '@stripe/stripe-js';
import { type FormEvent, useState } from 'react';
import { getErrorMessage } from '@/lib/errors';
import { STRIPE_NOT_LOADED } from './stripe';

export function useStripeSubmit(onError: (message: string) => void, confirm: (stripe: Stripe, elements: StripeElements) => Promise<void>) {
  const stripe = useStripe();
  const elements = useElements();
  const [busy, setBusy] = useState(false);
  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!stripe || !elements) return onError(STRIPE_NOT_LOADED);
    setBusy(true);
    try {
      await confirm(stripe, elements);
    } catch (error) {
      onError(getErrorMessage(error));
    } finally {
      setBusy(false);
    }
  }
  return { stripe, busy, submit };
}
