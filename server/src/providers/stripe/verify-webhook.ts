// A webhook delivery, verified on its raw bytes by the SDK (HMAC-SHA256 with the endpoint's secret).
import Stripe from 'stripe';

/**
 * Verifies a webhook delivery on its raw bytes (HMAC-SHA256 with the endpoint secret, 300 s
 * tolerance) and parses it; throws when the signature is missing, wrong or too old.
 */
export function verifyWebhook(rawBody: Buffer | string, signature: string | undefined, secret: string): Stripe.Event {
  if (!signature) throw new Error('No Stripe-Signature header');
  return Stripe.webhooks.constructEvent(rawBody, signature, secret, 300);
}
