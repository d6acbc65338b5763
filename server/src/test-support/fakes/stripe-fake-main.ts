// Runs the Stripe fake as its own process, for browser tests and manual runs:
//   STRIPE_FAKE_WEBHOOK_URL=http://127.0.0.1:3000/api/billing/webhook/ node --import tsx src/test-support/fakes/stripe-fake-main.ts
// prints one JSON line {url, secretKey, publishableKey, webhookSecret} and serves until stopped.
// GET {url}/stripe-js-double.js is the Stripe.js test double that confirms against it;
// POST {url}/_test/transfer-faults (refuseNext=1, stall=true|false, release=true) makes transfers fail or hang.
// POST {url}/_test/disputes (payment_intent=pi_…) opens a dispute on its charge; (dispute=dp_…, status=won|lost) closes it.
import { startStripeFake } from './stripe-fake.ts';

const fake = await startStripeFake({
  secretKey: process.env.STRIPE_FAKE_SECRET_KEY ?? 'sk_test_fake',
  publishableKey: process.env.STRIPE_FAKE_PUBLISHABLE_KEY ?? 'pk_test_fake',
  webhookSecret: process.env.STRIPE_FAKE_WEBHOOK_SECRET ?? 'whsec_fake',
  webhookUrl: process.env.STRIPE_FAKE_WEBHOOK_URL ?? null,
});
// The platform's available balance that transfers to connected accounts draw on, per currency
// (minor units; the same number for each: usd cents, whole yen, whole dong, euro cents).
for (const currency of ['usd', 'eur', 'jpy', 'vnd']) fake.setBalance(currency, Number(process.env.STRIPE_FAKE_PLATFORM_BALANCE ?? 100_000_000));
console.log(JSON.stringify({ url: fake.url, secretKey: fake.secretKey, publishableKey: fake.publishableKey, webhookSecret: fake.webhookSecret }));
const stop = () => void fake.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
