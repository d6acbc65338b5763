// The invoice a PaymentIntent paid, if any (a subscription's; a credits top-up has none).
import type Stripe from 'stripe';
import type { StripeClient } from './client.ts';

export async function findInvoiceOfPayment(stripe: StripeClient, paymentIntentId: string): Promise<Stripe.Invoice | null> {
  const payments = await stripe.invoicePayments.list({ payment: { type: 'payment_intent', payment_intent: paymentIntentId }, limit: 1 });
  const invoice = payments.data[0]?.invoice;
  const invoiceId = typeof invoice === 'string' ? invoice : (invoice?.id ?? null);
  return invoiceId ? await stripe.invoices.retrieve(invoiceId) : null;
}
