// Issue 60 in the browser: an app priced per token shows its rate card on Explore and in the console,
// a call from the console says its exact amount (a fraction of a cent, not a rounded cent) beside its
// tokens, and the creator's invocations list shows the same amount. Takes the screenshots
// docs/screenshots/price-forms-explore.png and price-forms-console.png when SCREENSHOTS_DIR is set.
import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { screenshotPath, signUp, signUpCreator } from './support.ts';

const shot = screenshotPath;

test('a per-token app shows its rate card on Explore and in the console, and each call its exact amount', async ({ page, browser }) => {
  test.setTimeout(120_000);
  const creator = await signUpCreator(page);
  const name = `Token Poet ${randomBytes(3).toString('hex')}`;
  const created = await page.request.post('/api/app/', {
    headers: creator,
    data: {
      name,
      description: 'Short poems, paid by the token.',
      type: 'prompt',
      visibility: 'public',
      pricing: { form: 'per_token', input_per_mtok_micros: 150_000_000, output_per_mtok_micros: 600_000_000, minimum_micros: 100 },
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const slug = (await created.json()).slug as string;
  expect((await page.request.patch(`/api/app/${slug}/update_status/`, { headers: creator, data: { status: 'live' } })).status()).toBe(200);

  const context = await browser.newContext();
  const caller = await context.newPage();
  await signUp(caller);

  // Explore: the card line by line, no "per successful call".
  await caller.goto(`/explore/${slug}`);
  const price = caller.getByTestId('explore-price');
  await expect(price).toContainText('$150.00 per million input tokens');
  await expect(price).toContainText('$600.00 per million output tokens');
  await expect(price).toContainText('minimum $0.0001 per call');
  await expect(price).not.toContainText('per successful call');
  await caller.screenshot({ ...shot('price-forms-explore.png'), fullPage: false });

  // The console: the card, then a call's exact amount and its tokens.
  await caller.goto(`/api-test?app=${slug}`);
  await expect(caller.getByTestId('console-price')).toHaveText(/\$150\.00 per million input tokens\s+\$600\.00 per million output tokens/);
  const completion = caller.getByRole('region', { name: 'Test Completion API' });
  await completion.getByLabel('Input Text').fill('owls at dusk');
  await completion.getByRole('button', { name: 'Test Completion' }).click();
  const charged = completion.getByTestId('result-charged');
  await expect(charged).toHaveText(/^Charged: \$0\.\d{2,6}, the app's price, from your credits\.$/);
  const input = Number(await completion.getByTestId('result-input-tokens').textContent());
  const output = Number(await completion.getByTestId('result-output-tokens').textContent());
  // The rate card applied to the call's tokens, rounded up once to a micro-dollar, at least the minimum.
  const micros = Math.max(100, Math.ceil((input * 150_000_000 + output * 600_000_000) / 1_000_000));
  const amount = `$0.${String(micros).padStart(6, '0').replace(/0+$/, '').padEnd(2, '0')}`;
  await expect(charged).toHaveText(`Charged: ${amount}, the app's price, from your credits.`);
  // One tall viewport rather than a full-page capture, which repeats the sticky header mid-page.
  await caller.setViewportSize({ width: 1280, height: 1360 });
  await caller.evaluate(() => window.scrollTo(0, 0));
  await caller.screenshot({ ...shot('price-forms-console.png') });
  await context.close();

  // The creator's invocations list shows the call's exact amount.
  await page.goto(`/applications/${slug}/analytics`);
  const row = page.getByTestId('invocation-row').first();
  await expect(row).toContainText(amount);
});
