// Monthly statements in Chromium (issue 23 item 6): a second Tollbooth against the Stripe fake (its
// own process, as payouts.spec.ts does). A caller tops up (the Stripe receipt is kept), is partly
// refunded, calls two apps and subscribes to a plan (partly refunded, then disputed); the creator is paid out. Each opens the
// Statements page from Money, sees their month, downloads the CSV, and sees an empty month.
// STATEMENTS_SCREENSHOTS_DIR keeps a full-page screenshot of each.
import { readFileSync } from 'node:fs';
import { AxeBuilder } from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { accessTokenOf, EARNINGS_AT_ONCE_ENV, type StripeTollbooth, screenshotsInto, signUp, stripeTollboothForFile } from './support.ts';

const shot = screenshotsInto(process.env.STATEMENTS_SCREENSHOTS_DIR);
/** axe-core: no serious or critical violation and no heading-order problem (as accessibility.spec.ts asks of every screen). */
const axeProblems = async (page: Page) =>
  (await new AxeBuilder({ page }).analyze()).violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical' || v.id === 'heading-order')
    .map((v) => `${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`);
let base = '';
let stripe: StripeTollbooth['stripe'];

// A real (fake) model provider, so the calls are charged and the creator earns.
stripeTollboothForFile({ name: 'statements', modelKey: 'sk-statements-model', env: { ...EARNINGS_AT_ONCE_ENV, PLATFORM_FEE_BPS: '1000' } }, (started) => {
  ({ base, stripe } = started);
});

/** Stripe's API as the card holder's browser and the dashboard would use it (the fake, over HTTP). */
const stripeApi = (pathname: string, form: Record<string, string>) =>
  fetch(`${stripe.url}${pathname}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stripe.secretKey}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
const payWithCard = async (paymentIntentId: string) =>
  expect(
    (
      await stripeApi(`/v1/payment_intents/${paymentIntentId}/confirm`, {
        'payment_method_data[type]': 'card',
        'payment_method_data[card][number]': '4242424242424242',
      })
    ).status,
  ).toBe(200);

test('a caller and a creator each open their monthly statement, download it as CSV, and see an empty month', async ({ browser }) => {
  const creatorContext = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const creatorPage = await creatorContext.newPage();
  await signUp(creatorPage);
  const asCreator = { authorization: `Bearer ${await accessTokenOf(creatorPage)}` };
  const apps: string[] = [];
  for (const [name, price] of [
    ['Haiku Writer', 100],
    ['Summarizer', 40],
  ] as const) {
    const created = await creatorPage.request.post('/api/app/', {
      headers: asCreator,
      data: { name, type: 'prompt', visibility: 'public', price_cents: price },
    });
    expect(created.status()).toBe(201);
    const slug = (await created.json()).slug as string;
    await creatorPage.request.patch(`/api/app/${slug}/update_status/`, { headers: asCreator, data: { status: 'live' } });
    apps.push(slug);
  }
  const plan = await creatorPage.request.post(`/api/app/${apps[0]}/packages/`, { headers: asCreator, data: { name: 'Pro', price: 9, included_calls: 100 } });
  expect(plan.status()).toBe(201);

  const callerContext = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const callerPage = await callerContext.newPage();
  await signUp(callerPage);
  const asCaller = { authorization: `Bearer ${await accessTokenOf(callerPage)}` };
  const credits = async () => (await (await callerPage.request.get('/api/billing/balance/', { headers: asCaller })).json()).credits_cents as number;
  const before = await credits();
  const topUp = await (await callerPage.request.post('/api/billing/top-ups/', { headers: asCaller, data: { amount_cents: 2500 } })).json();
  await payWithCard(topUp.payment_intent_id);
  await expect.poll(credits).toBe(before + 2500);
  expect((await stripeApi('/v1/refunds', { payment_intent: topUp.payment_intent_id, amount: '500' })).status).toBe(200);
  await expect.poll(credits).toBe(before + 2000);
  for (const [slug, calls] of [
    [apps[0], 3],
    [apps[1], 2],
  ] as const) {
    for (let i = 0; i < calls; i++) {
      const call = await callerPage.request.post(`/api/app/${slug}/completion-messages`, { headers: asCaller, data: { inputs: { query: 'hi' } } });
      expect(call.status()).toBe(200);
    }
  }
  const subscribed = await callerPage.request.post(`/api/app/${apps[0]}/subscriptions/`, { headers: asCaller, data: { package_id: (await plan.json()).id } });
  expect(subscribed.status()).toBe(201);
  const subscriptionPayment = ((await subscribed.json()).client_secret as string).split('_secret_')[0]!;
  await payWithCard(subscriptionPayment);
  // Part of the subscription payment is refunded to the caller: the creator sees it, and keeps the earnings.
  await expect
    .poll(async () => (await (await callerPage.request.get(`/api/app/${apps[0]}/subscriptions/`, { headers: asCaller })).json())[0]?.status)
    .toBe('active');
  expect((await stripeApi('/v1/refunds', { payment_intent: subscriptionPayment, amount: '300' })).status).toBe(200);
  // Then the cardholder disputes the payment: the platform bears what was not refunded yet ($6.00).
  expect((await stripeApi('/_test/disputes', { payment_intent: subscriptionPayment })).status).toBe(200);
  await expect
    .poll(async () => (await (await creatorPage.request.get('/api/billing/payouts/', { headers: asCreator })).json()).balances[0]?.available_cents ?? 0)
    .toBeGreaterThan(1000);
  // The creator is paid out.
  const link = await creatorPage.request.post('/api/billing/payouts/connect/', { headers: asCreator });
  expect((await fetch((await link.json()).url, { redirect: 'manual' })).status).toBe(302);
  await expect
    .poll(async () => (await creatorPage.request.post('/api/billing/payouts/refresh/', { headers: asCreator })).json().then((o) => o.account?.transfers_active))
    .toBe(true);
  expect((await creatorPage.request.post('/api/billing/payouts/withdraw/', { headers: asCreator })).status()).toBe(200);

  const month = new Date().toISOString().slice(0, 7);
  const monthLabel = new Date().toLocaleDateString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });

  // The caller: from Money to Statements, their month.
  await callerPage.goto('/money');
  await callerPage.getByRole('link', { name: 'Monthly statements' }).click();
  await expect(callerPage).toHaveURL(/\/money\/statements/);
  await expect(callerPage.getByRole('heading', { name: 'Statements', level: 1 })).toBeVisible();
  await expect(callerPage.getByLabel('Month')).toHaveValue(month);
  const credit = callerPage.getByTestId('caller-usd');
  await expect(credit.getByTestId('top-ups-total')).toHaveText('$25.00');
  await expect(credit.getByRole('link', { name: /Stripe receipt/ })).toHaveAttribute('href', /^https:\/\/pay\.stripe\.com\/receipts\//);
  await expect(credit.getByText('Top-up refunded')).toBeVisible();
  await expect(credit.getByRole('row', { name: /Haiku Writer 3 \$3\.00/ })).toBeVisible();
  await expect(credit.getByRole('row', { name: /Summarizer 2 \$0\.80/ })).toBeVisible();
  await expect(credit.getByRole('row', { name: /Haiku Writer Pro .*\$9\.00/ })).toBeVisible();
  await expect(credit.getByText(/Subscription payment refunded/)).toBeVisible();
  await expect(credit.getByRole('row', { name: /Disputed with your card issuer: Pro on .*\$6\.00/ })).toBeVisible();
  await expect(credit.getByTestId('closing-balance')).toHaveText(
    new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format((await credits()) / 100),
  );
  await shot(callerPage, 'statement-caller');
  expect(await axeProblems(callerPage)).toEqual([]);
  const download = callerPage.waitForEvent('download');
  await callerPage.getByRole('button', { name: 'Download CSV' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe(`statement-${month}-caller.csv`);
  const csv = readFileSync((await file.path())!, 'utf8');
  expect(csv.split('\r\n')[0]).toMatch(/^month,role,currency,section,date,description/);
  expect(csv).toContain(',top_up,');
  expect(csv).toContain('pay.stripe.com/receipts');

  // A month without activity (keyboard: focus the picker is not needed when the URL names the month).
  await callerPage.goto('/money/statements?month=2025-01');
  await expect(callerPage.getByTestId('statement-empty')).toHaveText('No activity in January 2025');
  await shot(callerPage, 'statement-empty');

  // The creator: their earnings side.
  await creatorPage.goto('/money/statements');
  await creatorPage.getByRole('button', { name: 'Your earnings' }).click();
  const earnings = creatorPage.getByTestId('creator-usd');
  await expect(earnings.getByTestId('gross-total')).toHaveText('$12.80');
  await expect(earnings.getByRole('row', { name: /Haiku Writer 3 \$3\.00/ })).toBeVisible();
  await expect(earnings.getByText('Subscription revenue')).toBeVisible();
  await expect(earnings.getByTestId('fee-total')).toHaveText('-$1.28');
  await expect(earnings.getByRole('row', { name: /Pro \$3\.00/ })).toBeVisible();
  await expect(earnings.getByRole('row', { name: /Pro \(disputed\) \$6\.00/ })).toBeVisible();
  await expect(earnings.getByText('Payout started')).toBeVisible();
  await expect(creatorPage.getByText(`${monthLabel}`)).toBeAttached();
  await shot(creatorPage, 'statement-creator');
  expect(await axeProblems(creatorPage)).toEqual([]);
  const creatorDownload = creatorPage.waitForEvent('download');
  await creatorPage.getByRole('button', { name: 'Download CSV' }).click();
  expect((await creatorDownload).suggestedFilename()).toBe(`statement-${month}-creator.csv`);

  await creatorContext.close();
  await callerContext.close();
});
