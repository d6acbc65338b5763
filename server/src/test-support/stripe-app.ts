// A paid test app that takes money through the Stripe fake: the official SDK reaches the fake through
// STRIPE_API_BASE, and the app listens on loopback where the fake delivers its signed webhooks.
import type { AddressInfo } from 'node:net';
import { createPaidTestContext, type PaidTestContext, type TestContextOptions } from './app.ts';
import { type StripeFake, startStripeFake, stripeEnv } from './fakes/stripe-fake.ts';

export interface StripeTestContext extends PaidTestContext {
  stripe: StripeFake;
  /** The app's webhook endpoint, where the fake delivers (set again after a test points it elsewhere). */
  webhookUrl: string;
}

/** `env` adds to (or overrides) the Stripe keys and a rate limit no test reaches. */
export async function createStripeTestContext(env: Record<string, string> = {}, options: TestContextOptions = {}): Promise<StripeTestContext> {
  const stripe = await startStripeFake();
  let ctx: PaidTestContext | undefined;
  try {
    ctx = await createPaidTestContext(
      {
        ...stripeEnv(stripe),
        RATE_LIMIT_PER_MINUTE: '100000',
        ...env,
      },
      options,
    );
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  } catch (error) {
    await ctx?.close();
    await stripe.close();
    throw error;
  }
  const webhookUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}/api/billing/webhook/`;
  stripe.setWebhookUrl(webhookUrl);
  const paid = ctx;
  return {
    ...paid,
    stripe,
    webhookUrl,
    async close() {
      await paid.close();
      await stripe.close();
    },
  };
}
