// Signed webhooks in Chromium (issue 62): a second Tollbooth against the Stripe fake (as
// statements.spec.ts runs one). A caller adds an endpoint on Settings → Webhooks (a receiver on
// loopback, allowed by ALLOW_PRIVATE_WEBHOOK_URLS), keeps the secret shown once, tops up with a card,
// and sees the signed delivery arrive (verified by the registry's standardwebhooks) and in the
// endpoint's delivery log. WEBHOOKS_SCREENSHOTS_DIR keeps a screenshot of the page and of the log.
import { createServer as createHttpServer, type Server } from 'node:http';
import path from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { Webhook } from 'standardwebhooks';
import { accessTokenOf, type StripeTollbooth, signUp, stripeTollboothForFile } from './support.ts';

const SHOTS = process.env.WEBHOOKS_SCREENSHOTS_DIR;
const shot = async (page: Page, name: string) => {
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
};

let base = '';
let receiver: Server | undefined;
let receiverUrl = '';
let stripe: StripeTollbooth['stripe'];
const received: { headers: Record<string, string>; body: string }[] = [];

stripeTollboothForFile({ name: 'webhooks', env: { SIGNUP_LIMIT_PER_ADDRESS_PER_HOUR: '10000', ALLOW_PRIVATE_WEBHOOK_URLS: 'on' } }, (started) => {
  ({ base, stripe } = started);
});

test.beforeAll(async () => {
  receiver = createHttpServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(200, { 'content-type': 'text/plain' }).end('received, thank you');
    });
  });
  await new Promise<void>((resolve) => receiver!.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/tollbooth-events`;
});

test.afterAll(() => {
  receiver?.closeAllConnections();
  receiver?.close();
});

test('add an endpoint in Settings, top up, and see the signed delivery arrive and in the delivery log', async ({ browser }) => {
  const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await signUp(page);
  const asCaller = { authorization: `Bearer ${await accessTokenOf(page)}` };

  await page.goto('/profile');
  await page.getByRole('link', { name: 'Webhooks & alerts →' }).click();
  await expect(page).toHaveURL(/\/settings\/webhooks$/);
  await expect(page.getByRole('heading', { name: 'Webhooks & Alerts' })).toBeVisible();
  await page.getByLabel('Endpoint URL').fill(receiverUrl);
  await page.getByLabel('Description').fill('Accounting');
  await page.getByRole('group', { name: 'Events' }).first().getByLabel('payout.paid').check();
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  const secret = (await page.getByTestId('webhook-secret').textContent())?.trim() ?? '';
  expect(secret).toMatch(/^whsec_/);
  await expect(page.getByRole('listitem').filter({ hasText: receiverUrl })).toContainText('Enabled');
  await shot(page, 'webhooks-endpoint');

  // A card top-up through Stripe (the fake): its webhook credits the account, and the outbox tells ours.
  const topUp = await (await page.request.post('/api/billing/top-ups/', { headers: asCaller, data: { amount_cents: 2500 } })).json();
  const confirmed = await fetch(`${stripe.url}/v1/payment_intents/${topUp.payment_intent_id}/confirm`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stripe.secretKey}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ 'payment_method_data[type]': 'card', 'payment_method_data[card][number]': '4242424242424242' }),
  });
  expect(confirmed.status).toBe(200);
  await expect.poll(() => received.length, { timeout: 30_000 }).toBeGreaterThan(0);
  const delivery = received[0]!;
  const event = new Webhook(secret).verify(delivery.body, delivery.headers) as { id: string; type: string; data: Record<string, unknown> };
  expect(event.type).toBe('topup.succeeded');
  expect(event.data).toMatchObject({ amount_cents: 2500, currency: 'usd', payment_intent_id: topUp.payment_intent_id });
  expect(delivery.headers['webhook-id']).toBe(event.id);

  await page.getByRole('button', { name: 'Delivery log' }).click();
  const log = page.getByLabel(`Delivery log of ${receiverUrl}`);
  await expect(log.getByRole('row').filter({ hasText: 'topup.succeeded' })).toContainText('200 OK');
  await expect(log).toContainText('received, thank you');
  await expect(log).toContainText(event.id);
  await shot(page, 'webhooks-delivery-log');

  // Send again: a second attempt with the same webhook-id.
  await log.getByRole('button', { name: 'Send again' }).first().click();
  await expect.poll(() => received.length, { timeout: 30_000 }).toBe(2);
  expect(received[1]!.headers['webhook-id']).toBe(event.id);
  await expect(log.getByRole('row').filter({ hasText: 'sent again' })).toHaveCount(1, { timeout: 20_000 });
  await context.close();
});
