// A paid test app that takes money through the Stripe fake: the official SDK reaches the fake through
// STRIPE_API_BASE, and the app listens on loopback where the fake delivers its signed webhooks.
import { createPaidTestContext, listenOnLoopback, type PaidTestContext, type TestContextOptions } from './app.ts';
import { type StripeFake, startStripeFake, stripeEnv } from './fakes/stripe-fake.ts';

/** For tests that pay creators out themselves: callers with plenty of credit, every call settled at once, no background payout sweep. */
export const PAYOUT_TEST_ENV = { SIGNUP_CREDITS_CENTS: '100000', SETTLEMENT_WINDOW_CALLS: '0', PAYOUT_SWEEP_SECONDS: '0' };

export interface StripeTestContext extends PaidTestContext {
  stripe: StripeFake;
  /** The app's webhook endpoint, where the fake delivers (set again after a test points it elsewhere). */
  webhookUrl: string;
}

/** `env` adds to (or overrides) the Stripe keys and a rate limit no test reaches. */
export async function createStripeTestContext(env: Record<string, string> = {}, options: TestContextOptions = {}): Promise<StripeTestContext> {
  const stripe = await startStripeFake();
  let ctx: PaidTestContext | undefined;
  let webhookUrl: string;
  try {
    ctx = await createPaidTestContext({ ...stripeEnv(stripe), RATE_LIMIT_PER_MINUTE: '100000', ...env }, options);
    webhookUrl = `${await listenOnLoopback(ctx.app)}/api/billing/webhook/`;
  } catch (error) {
    await ctx?.close();
    await stripe.close();
    throw error;
  }
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
