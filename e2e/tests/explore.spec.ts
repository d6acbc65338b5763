// A second user finds a creator's app in /explore, reads its public page, tries it in the API Test
// Console with the app's real fields, and calls it with the curl snippet copied from the page. The
// app is a Dify workflow app answered by the Dify fake (a real provider fake, so calls are charged;
// demo-model answers are free).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { type APIRequestContext, expect, test } from '@playwright/test';
import { difyFakeUrl } from '../playwright.config.ts';
import { accessTokenOf, newAccount, signUp } from './support.ts';

const DIFY_KEY = 'app-e2e-dify-key';
const PRICE_CENTS = 30;

async function apiCall(request: APIRequestContext, token: string, method: 'GET' | 'POST' | 'PATCH', path: string, data?: object) {
  const response = await request.fetch(`/api${path}`, { method, headers: { Authorization: `Bearer ${token}` }, ...(data ? { data } : {}) });
  expect(response.ok(), `${method} ${path}: ${await response.text()}`).toBe(true);
  return response.json();
}

test('a second user finds an app in Explore, reads its page, tries it in the console and calls it with the copied curl snippet', async ({ browser }) => {
  test.setTimeout(180_000);
  const id = randomBytes(3).toString('hex');
  const name = `Support Desk ${id}`;

  // The creator publishes a live public workflow app (its Dify app takes an optional customer name).
  const creatorContext = await browser.newContext();
  const creatorPage = await creatorContext.newPage();
  const creator = newAccount('creator');
  creator.displayName = `Creator ${id}`;
  await signUp(creatorPage, creator);
  const creatorToken = await accessTokenOf(creatorPage);
  const app = await apiCall(creatorPage.request, creatorToken, 'POST', '/app/', {
    name,
    description: 'Answers support questions in the voice of the help desk',
    type: 'workflow',
    visibility: 'public',
    price_cents: PRICE_CENTS,
    provider_config: { app_id: 'dify-e2e-app', api_key: DIFY_KEY, base_url: difyFakeUrl },
  });
  const slug = app.slug as string;
  // Saving the workflow checks it against Dify and keeps its input form.
  const workflow = await apiCall(creatorPage.request, creatorToken, 'PATCH', `/app/${slug}/workflow/`, { timeout_seconds: 120 });
  expect(workflow.app_info.mode).toBe('advanced-chat');
  await apiCall(creatorPage.request, creatorToken, 'PATCH', `/app/${slug}/update_status/`, { status: 'live' });
  await creatorContext.close();

  // A second user finds it.
  const context = await browser.newContext();
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const page = await context.newPage();
  await signUp(page);
  const token = await accessTokenOf(page);
  const credits = async () => (await apiCall(page.request, token, 'GET', '/billing/balance/')).credits_cents as number;
  const startCredits = await credits();

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Explore' }).click();
  await expect(page).toHaveURL(/\/explore$/);
  await expect(page.getByRole('heading', { name: 'Explore', level: 1 })).toBeVisible();
  await page.getByRole('searchbox', { name: 'Search' }).fill(`desk ${id}`);
  const card = page.getByRole('list', { name: 'Apps' }).getByRole('listitem');
  await expect(card).toHaveCount(1);
  await expect(card).toContainText(`by ${creator.displayName}`);
  await expect(card).toContainText('$0.30');
  await page.screenshot({ path: 'test-results/explore-list.png', fullPage: true });
  await card.getByRole('link', { name }).click();

  // Its public page: description, creator (never the e-mail), price, inputs, API reference.
  await expect(page).toHaveURL(new RegExp(`/explore/${slug}$`));
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
  await expect(page.getByText('Answers support questions in the voice of the help desk')).toBeVisible();
  await expect(page.getByText(creator.displayName, { exact: true })).toBeVisible();
  await expect(page.locator('body')).not.toContainText(creator.email);
  await expect(page.getByTestId('explore-price')).toContainText('$0.30');
  const inputs = page.getByRole('region', { name: 'Inputs' });
  await expect(inputs).toContainText('inputs.customer');
  await expect(inputs).toContainText('Customer name');
  await expect(inputs).toContainText('at most 40 characters');
  const reference = page.getByRole('region', { name: 'API reference' });
  await expect(reference).toContainText(`/api/app/${slug}/chat-messages`);
  await page.screenshot({ path: 'test-results/explore-app.png', fullPage: true });

  // Try it: the console shows the app's real field and sends it.
  await page.getByTestId('explore-price').getByRole('link', { name: 'Try it' }).click();
  await expect(page).toHaveURL(new RegExp(`/api-test\\?app=${slug}$`));
  const fields = page.getByRole('region', { name: 'App Inputs' });
  await expect(fields.getByLabel('customer')).toBeVisible();
  const chat = page.getByRole('region', { name: 'Test Chat API' });
  // The field really travels: the gateway checks it against the Dify form (at most 40 characters).
  await fields.getByLabel('customer').fill('x'.repeat(41));
  await chat.getByLabel('Chat Query').fill('Where is my order?');
  await chat.getByRole('button', { name: 'Test Chat' }).click();
  await expect(chat.getByRole('alert')).toContainText('inputs.customer: must be at most 40 characters');
  await fields.getByLabel('customer').fill('Ada');
  await chat.getByRole('button', { name: 'Test Chat' }).click();
  await expect(chat.getByText('Response Received')).toBeVisible();
  await expect(chat.getByTestId('result-answer')).toHaveText('Dify echo: Where is my order?');
  await expect(chat.getByRole('alert')).toHaveCount(0);
  await expect.poll(credits).toBe(startCredits - PRICE_CENTS);
  await page.screenshot({ path: 'test-results/explore-console.png', fullPage: true });

  // The copied curl snippet, pasted with a real key, calls the app and is charged.
  await page.goBack();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
  await page.getByRole('button', { name: 'Copy curl snippet' }).click();
  await expect(page.getByRole('button', { name: 'Copy curl snippet' })).toHaveText('Copied');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(await page.getByTestId('snippet-curl').textContent());
  const key = (await apiCall(page.request, token, 'POST', '/keys/', { name: 'explore e2e' })).key as string;
  const output = execFileSync('sh', ['-c', copied.replaceAll('YOUR_API_KEY', key)], { encoding: 'utf8', timeout: 60_000 });
  expect(JSON.parse(output)).toMatchObject({ event: 'message', mode: 'chat', answer: 'Dify echo: Hello! What can you do?' });
  await expect.poll(credits).toBe(startCredits - 2 * PRICE_CENTS);

  // The pages on a phone.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: 'test-results/explore-app-390.png', fullPage: true });
  await page.goto(`/explore?q=${id}`);
  await expect(page.getByRole('list', { name: 'Apps' }).getByRole('listitem')).toHaveCount(1);
  await page.screenshot({ path: 'test-results/explore-list-390.png', fullPage: true });
  await page.goto(`/api-test?app=${slug}`);
  await expect(page.getByRole('region', { name: 'App Inputs' })).toBeVisible();
  await page.screenshot({ path: 'test-results/explore-console-390.png', fullPage: true });
  await context.close();
});
