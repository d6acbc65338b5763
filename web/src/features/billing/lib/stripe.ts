// Stripe.js, loaded once per publishable key from Stripe's own host (the official loader), and the
// spec's payment-form rules: allowed billing countries, payment method order, error texts.
// The pure entry injects Stripe's script only when loadStripe() is first called (on a billing screen
// with a publishable key), never merely because this module is part of the bundle.
import type { Stripe } from '@stripe/stripe-js';
import { loadStripe } from '@stripe/stripe-js/pure';

export const ALLOWED_BILLING_COUNTRIES = ['US', 'CA', 'GB', 'AU', 'DE', 'FR', 'ES', 'IT', 'NL'];
export const PAYMENT_METHOD_ORDER = ['card', 'apple_pay', 'google_pay'];

export const STRIPE_NOT_LOADED = 'Stripe has not loaded yet. Please try again.';
export const PAYMENT_NOT_COMPLETED = 'Payment was not completed successfully';
export const PAYMENT_METHOD_FAILED = 'Failed to create payment method';

const loaded = new Map<string, Promise<Stripe | null>>();

export function stripePromise(publishableKey: string): Promise<Stripe | null> {
  let promise = loaded.get(publishableKey);
  if (!promise) {
    promise = loadStripe(publishableKey);
    loaded.set(publishableKey, promise);
  }
  return promise;
}

/** Where Stripe sends the browser back after 3-D Secure or a redirecting method. */
export const returnUrl = (slug: string) => `${window.location.origin}/billing/success?app=${encodeURIComponent(slug)}`;
