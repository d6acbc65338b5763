// Billing in Chromium. Without Stripe (the suite's server): the not-configured notice, a free plan
// made in the owner's editor, subscribed to, and its included calls used by the next call. With
// Stripe: a second Tollbooth configured against the Stripe fake (its own process), and the page's
// request for Stripe.js answered by the fake's Stripe.js double, so add-card, subscribe and a
// top-up run end to end through Stripe Elements, confirmation and signed webhooks.
import { randomBytes } from 'node:crypto';
import { type Browser, expect, type Page, test } from '@playwright/test';
import { createLivePublicPrompt, type StripeTollbooth, screenshotsInto, signUp, startStripeTollbooth, watchCspViolations } from './support.ts';

const unique = () => randomBytes(3).toString('hex');
const shot = screenshotsInto(process.env.BILLING_SCREENSHOTS_DIR);

/** A new owner with a live public prompt app named `title` and a random suffix, its billing page open; its slug. */
async function signUpWithPlansPage(page: Page, title: string): Promise<string> {
  await signUp(page);
  const id = unique();
  await createLivePublicPrompt(page, `${title} ${id}`, '0.25', 'A prompt with plans');
  const slug = `${title.toLowerCase().replace(' ', '-')}-${id}`;
  await page.goto(`/applications/${slug}/billing`);
  return slug;
}

async function createPlan(page: Page, plan: { name: string; price: string; included: string; features?: string }) {
  await page.getByRole('button', { name: 'New plan' }).click();
  const editor = page.getByRole('form', { name: 'Plan editor' });
  await editor.getByLabel('Name').fill(plan.name);
  await editor.getByLabel('Price (per month)').fill(plan.price);
  await editor.getByLabel('Included calls per month').fill(plan.included);
  if (plan.features) await editor.getByLabel('Features (one "key: value" per line)').fill(plan.features);
  await editor.getByRole('button', { name: 'Create plan' }).click();
  await expect(page.getByTestId('plan').filter({ hasText: plan.name })).toBeVisible();
}

test('without Stripe: the notice, a free plan from the owner, subscribed to, its included calls used by the next call', async ({ page, browser }) => {
  await signUp(page);
  const id = unique();
  const name = `Plans ${id}`;
  const slug = `plans-${id}`;
  await createLivePublicPrompt(page, name, '0.25', 'A prompt with plans');
  await page.getByRole('link', { name: 'Billing & Subscriptions' }).click();
  await expect(page).toHaveURL(new RegExp(`/applications/${slug}/billing$`));
  await expect(page.getByRole('heading', { name: 'Billing & Subscriptions', level: 1 })).toBeVisible();
  await expect(page.getByText('Manage your subscriptions and payment methods for this application.')).toBeVisible();
  await expect(page.getByRole('note')).toContainText('not configured');
  await createPlan(page, { name: 'Trial', price: '0', included: '2', features: 'Support: Community' });
  await expect(page.getByTestId('plan').filter({ hasText: 'Trial' })).toContainText('Support: Community');
  await shot(page, 'billing-owner-no-stripe');

  const context = await browser.newContext();
  const other = await context.newPage();
  try {
    await signUp(other);
    await other.goto(`/applications/${slug}/billing`);
    await expect(other.getByText('No active subscriptions')).toBeVisible();
    await expect(other.getByText('No payment methods added')).toBeVisible();
    await expect(other.getByRole('form', { name: 'Plan editor' })).toHaveCount(0);
    await other.getByTestId('plan').filter({ hasText: 'Trial' }).getByRole('button', { name: 'Subscribe' }).click();
    const subscription = other.getByTestId('subscription');
    await expect(subscription).toContainText('Trial');
    await expect(subscription).toContainText('active');
    await expect(subscription).toContainText('0 of 2 included calls used');
    await shot(other, 'billing-subscriber-free');

    // The next call is covered by the plan: included calls used, credits untouched.
    await other.goto('/api-test');
    await other.getByLabel('App Slug').fill(slug);
    const completion = other.getByRole('region', { name: 'Test Completion API' });
    await completion.getByLabel('Input Text').fill('covered by my plan');
    await completion.getByRole('button', { name: 'Test Completion' }).click();
    await expect(completion.getByText('Response Received')).toBeVisible();
    await other.goto(`/applications/${slug}/billing`);
    await expect(other.getByTestId('subscription')).toContainText('1 of 2 included calls used');
    await other.goto('/money');
    await expect(other.getByTestId('credits-balance')).toHaveText('$5.00');

    // Cancel: offered while active and not canceling, then the Canceling badge.
    await other.goto(`/applications/${slug}/billing`);
    await other.getByTestId('subscription').getByRole('button', { name: 'Cancel' }).click();
    await expect(other.getByTestId('subscription')).toContainText('Canceling');
    await expect(other.getByTestId('subscription').getByRole('button', { name: 'Cancel' })).toHaveCount(0);
  } finally {
    await context.close();
  }
  await page.reload();
  await expect(page.getByTestId('subscriber-count')).toHaveText('1');
});

// ---- with Stripe configured ----

let tollbooth: StripeTollbooth | undefined;
let base = '';
let fakeUrl = '';

test.describe('with Stripe configured', () => {
  // One worker runs the group in order, so one Stripe-configured server serves both tests.
  test.describe.configure({ timeout: 120_000, mode: 'default' });

  test.beforeAll(async () => {
    // Starting a second server (and the fake) beside the suite's can take over a minute on a loaded machine.
    test.setTimeout(240_000);
    tollbooth = await startStripeTollbooth({ name: 'stripe' });
    base = tollbooth.base;
    fakeUrl = tollbooth.stripe.url;
  });

  test.afterAll(async () => {
    await tollbooth?.stop();
  });

  /** A browser context on the Stripe-configured server whose request for Stripe.js gets the double. */
  async function stripePage(browser: Browser) {
    const context = await browser.newContext({ baseURL: base });
    const double = await (await fetch(`${fakeUrl}/stripe-js-double.js`)).text();
    await context.route('https://js.stripe.com/**', (route) => route.fulfill({ status: 200, contentType: 'application/javascript', body: double }));
    // The app's Content-Security-Policy lets Stripe.js, its Elements and its API calls through.
    const cspViolations = await watchCspViolations(context);
    return { context, page: await context.newPage(), cspViolations };
  }

  test('add a card, subscribe to a paid plan, and top up credits, through Stripe Elements and webhooks', async ({ browser }) => {
    const owner = await stripePage(browser);
    const subscriber = await stripePage(browser);
    try {
      const slug = await signUpWithPlansPage(owner.page, 'Paid Plans');
      await expect(owner.page.getByRole('note')).toHaveCount(0);
      await createPlan(owner.page, { name: 'Pro', price: '9.99', included: '3', features: 'Support: Email' });

      const page = subscriber.page;
      await signUp(page);
      await page.goto(`/applications/${slug}/billing`);
      await expect(page.getByTestId('plan').filter({ hasText: 'Pro' })).toContainText('Popular');

      // Add a card: a SetupIntent confirmed with Stripe.js, saved as brand, last 4 and expiry.
      await page.getByRole('button', { name: 'Add Payment Method' }).click();
      const addDialog = page.getByRole('dialog', { name: 'Add Payment Method' });
      await addDialog.locator('[data-stripe-double="card-number"]').fill('4242 4242 4242 4242');
      await expect(addDialog.locator('[data-stripe-double="country"] option')).toHaveText(['US', 'CA', 'GB', 'AU', 'DE', 'FR', 'ES', 'IT', 'NL']);
      await expect(addDialog.locator('[data-stripe-double="methods"]')).toContainText('card, apple_pay, google_pay');
      await addDialog.getByRole('button', { name: 'Add Payment Method' }).click();
      const method = page.getByTestId('payment-method');
      await expect(method).toContainText('VISA');
      await expect(method).toContainText('4242');
      await expect(method).toContainText(/Expires 12\/\d{4}/);
      await expect(method).toContainText('Default');

      // Subscribe: the plan's first payment confirmed in the browser; Stripe's webhook activates it.
      await page.getByTestId('plan').filter({ hasText: 'Pro' }).getByRole('button', { name: 'Subscribe' }).click();
      const dialog = page.getByRole('dialog', { name: 'Subscribe to Pro' });
      await expect(dialog).toContainText('Package ID');
      await expect(dialog).toContainText('Support: Email');
      await expect(dialog).toContainText('You can cancel anytime');
      await dialog.locator('[data-stripe-double="card-number"]').fill('4242424242424242');
      await shot(page, 'billing-subscribe-modal');
      await dialog.getByRole('button', { name: 'Subscribe for $9.99/usd' }).click();
      await expect(dialog).toHaveCount(0);
      const subscription = page.getByTestId('subscription');
      await expect(subscription).toContainText('Pro');
      await expect(subscription).toContainText('active', { timeout: 15_000 });
      await expect(subscription).toContainText('0 of 3 included calls used');
      await shot(page, 'billing-subscriber-stripe');

      // A declined card: the provider's message is the page error.
      await owner.page.reload();
      await createPlan(owner.page, { name: 'Team', price: '5', included: '1' });
      await page.reload();
      await page.getByTestId('plan').filter({ hasText: 'Team' }).getByRole('button', { name: 'Subscribe' }).click();
      const declined = page.getByRole('dialog', { name: 'Subscribe to Team' });
      await declined.locator('[data-stripe-double="card-number"]').fill('4000000000009995');
      await declined.getByRole('button', { name: 'Subscribe for $5/usd' }).click();
      await expect(page.getByRole('alert')).toContainText('Your card has insufficient funds.');

      // Top up $5 from the Money page: credited once the PaymentIntent succeeds.
      await page.goto('/money');
      await expect(page.getByTestId('credits-balance')).toHaveText('$5.00');
      await page.getByLabel('Amount (USD, minimum $5)').fill('5');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.locator('[data-stripe-double="card-number"]').fill('4242424242424242');
      await page.getByRole('button', { name: 'Pay $5.00' }).click();
      await expect(page.getByText('Your credits were added.')).toBeVisible();
      await expect(page.getByTestId('credits-balance')).toHaveText('$10.00');
      await expect(page.getByTestId('statement')).toContainText('Credits top-up (card)');
      await shot(page, 'money-page');

      // The creator earned the subscription payment and sees the subscriber.
      await owner.page.goto('/money');
      await expect(owner.page.getByTestId('earnings-balance')).toHaveText('$9.99');
      await owner.page.goto(`/applications/${slug}/billing`);
      await expect(owner.page.getByRole('row', { name: /Pro/ }).getByTestId('subscriber-count')).toHaveText('1');
      await shot(owner.page, 'billing-owner-stripe');
      expect(subscriber.cspViolations).toEqual([]);
      expect(owner.cspViolations).toEqual([]);
    } finally {
      await owner.context.close();
      await subscriber.context.close();
    }
  });

  test('3-D Secure: the challenge appears over the page; failed, nothing is granted; completed, the subscription and the credits arrive once', async ({
    browser,
  }) => {
    const owner = await stripePage(browser);
    const subscriber = await stripePage(browser);
    const secureCard = '4000002500003155';
    try {
      const slug = await signUpWithPlansPage(owner.page, 'Secure Plans');
      await createPlan(owner.page, { name: 'Pro', price: '7', included: '2' });

      const page = subscriber.page;
      await signUp(page);
      await page.goto(`/applications/${slug}/billing`);
      const subscribeTo = async () => {
        await page.getByTestId('plan').filter({ hasText: 'Pro' }).getByRole('button', { name: 'Subscribe' }).click();
        const dialog = page.getByRole('dialog', { name: 'Subscribe to Pro' });
        await dialog.locator('[data-stripe-double="card-number"]').fill(secureCard);
        await dialog.getByRole('button', { name: 'Subscribe for $7/usd' }).click();
        const challenge = page.getByRole('dialog', { name: '3D Secure authentication' });
        await expect(challenge).toBeVisible();
        await expect(challenge).toContainText('7.00 USD');
        return challenge;
      };

      // The cardholder fails the challenge: Stripe's reason, and no subscription to use.
      const failing = await subscribeTo();
      await shot(page, 'billing-3ds-challenge');
      await failing.getByRole('button', { name: 'Fail authentication' }).click();
      await expect(page.getByRole('alert')).toContainText('We are unable to authenticate your payment method.');
      await page.reload();
      await expect(page.getByTestId('subscription').filter({ hasText: 'active' })).toHaveCount(0);
      await owner.page.goto('/money');
      await expect(owner.page.getByTestId('earnings-balance')).toHaveText('$0.00');

      // Again, and the challenge is completed: active once the payment went through.
      const completing = await subscribeTo();
      await completing.getByRole('button', { name: 'Complete authentication' }).click();
      const subscription = page.getByTestId('subscription');
      await expect(subscription).toContainText('active', { timeout: 15_000 });
      await expect(subscription).toContainText('0 of 2 included calls used');
      await owner.page.reload();
      await expect(owner.page.getByTestId('earnings-balance')).toHaveText('$7.00');

      // A top-up with the same card: credited only after the challenge, once.
      await page.goto('/money');
      await expect(page.getByTestId('credits-balance')).toHaveText('$5.00');
      await page.getByLabel('Amount (USD, minimum $5)').fill('6');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.locator('[data-stripe-double="card-number"]').fill(secureCard);
      await page.getByRole('button', { name: 'Pay $6.00' }).click();
      const challenge = page.getByRole('dialog', { name: '3D Secure authentication' });
      await expect(challenge).toBeVisible();
      await expect(page.getByTestId('credits-balance')).toHaveText('$5.00');
      await challenge.getByRole('button', { name: 'Complete authentication' }).click();
      await expect(page.getByText('Your credits were added.')).toBeVisible();
      await expect(page.getByTestId('credits-balance')).toHaveText('$11.00');
      await page.reload();
      await expect(page.getByTestId('credits-balance')).toHaveText('$11.00');
      await expect(page.getByTestId('statement').getByRole('row', { name: /Credits top-up \(card\)/ })).toHaveCount(1);
      // The 3-D Secure challenge and its confirmation call pass the Content-Security-Policy too.
      expect(subscriber.cspViolations).toEqual([]);
      expect(owner.cspViolations).toEqual([]);
    } finally {
      await owner.context.close();
      await subscriber.context.close();
    }
  });
});
