// Issue 25: a new creator who follows only what the screens say publishes a prompt app with a
// {{variable}}, a chat app and a Dify completion workflow, and each answers its first real call
// from the endpoint its page shows; a caller out of credit reaches the Money page in one click from
// the error. Every screen on the way passes axe (no serious or critical violation).
import { randomBytes } from 'node:crypto';
import { AxeBuilder } from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { difyCompletionFakeUrl } from '../playwright.config.ts';
import { accessTokenOf, signUp, typeInEditor } from './support.ts';

const DIFY_KEY = 'app-e2e-dify-key';
const SHOTS = process.env.SCREENSHOT_DIR;

/** axe on the screen as it is now: no serious or critical violation. Takes a screenshot when SCREENSHOT_DIR is set. */
async function expectAccessible(page: Page, screen: string) {
  await expect(page.getByText(/^(Loading|Checking authentication).*\.\.\.$/).filter({ visible: true })).toHaveCount(0);
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/${screen}.png`, fullPage: true });
  const { violations } = await new AxeBuilder({ page }).analyze();
  const serious = violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${screen}: ${violation.id} ${violation.help} — ${violation.nodes.map((node) => node.target.join(' ')).join(' | ')}`);
  expect(serious).toEqual([]);
}

/** An API key made on the profile page, as the screens tell a creator to. */
async function createApiKey(page: Page): Promise<string> {
  await page.goto('/profile');
  const keys = page.getByRole('region', { name: 'API Keys' });
  await keys.getByLabel('Key Name').fill(`Key ${randomBytes(2).toString('hex')}`);
  await keys.getByRole('button', { name: 'Create Key' }).click();
  const apiKey = (await keys.getByTestId('new-api-key').textContent()) ?? '';
  expect(apiKey).toMatch(/^tb_/);
  return apiKey;
}

/** The endpoint the application's detail page shows: "POST /api/app/{slug}/…-messages". */
async function shownEndpoint(page: Page, slug: string): Promise<string> {
  await page.goto(`/applications/${slug}`);
  const shown = (await page.getByTestId('api-endpoint').textContent()) ?? '';
  expect(shown).toMatch(/^POST \/api\/app\/[^/]+\/(completion|chat)-messages$/);
  return shown.replace(/^POST /, '');
}

test('a new creator publishes a prompt app with a {{variable}} and no declared input; the test, the curl example, Explore and the first real call agree', async ({
  page,
}) => {
  await signUp(page);
  const id = randomBytes(3).toString('hex');
  const slug = `haiku-${id}`;

  await page.goto('/prompt-builder');
  await page.getByLabel('Prompt Name').fill(`Haiku ${id}`);
  await page.getByLabel('Visibility').selectOption('public');
  await typeInEditor(page, 'System Prompt', 'You write haiku.');
  await typeInEditor(page, 'User Prompt Template', 'A haiku about {{query}}');

  // The schema tab says the variable becomes a required text input.
  await page.getByRole('tab', { name: 'Input/Output Schema' }).click();
  await expect(page.getByTestId('auto-declared-inputs')).toContainText('{{query}} is in the template but not declared above');
  await expectAccessible(page, 'builder-schema-auto-declared');

  // The test refuses a blank required input, as a real call does, and passes once it is given.
  await page.getByRole('tab', { name: 'Preview & Test' }).click();
  await expect(page.getByText('Required text input, declared automatically from the template')).toBeVisible();
  await page.getByRole('button', { name: 'Test Prompt' }).click();
  const result = page.getByTestId('test-result');
  await expect(result.getByText('Template Error')).toBeVisible();
  await expect(result).toContainText('inputs.query: is required');
  await page.getByLabel('query', { exact: true }).fill('owls');
  await page.getByRole('button', { name: 'Test Prompt' }).click();
  await expect(result.getByText('Template Valid')).toBeVisible();
  await expect(result.getByTestId('rendered-template')).toHaveText('A haiku about owls');
  await expect(page.getByTestId('curl-example')).toContainText(`-d '{"query":"owls"}'`);
  await expectAccessible(page, 'builder-preview-test');

  await page.getByRole('button', { name: 'Save & Publish' }).click();
  await expect(page).toHaveURL(/\/applications$/);

  // Explore lists the input the calls need.
  await page.goto(`/explore/${slug}`);
  await expect(page.getByRole('heading', { name: `Haiku ${id}`, level: 1 })).toBeVisible();
  await expect(page.getByText('This app takes no inputs.')).toHaveCount(0);
  await expect(page.getByRole('main')).toContainText('Query');
  await expectAccessible(page, 'explore-app-declared-input');

  const endpoint = await shownEndpoint(page, slug);
  expect(endpoint).toBe(`/api/app/${slug}/completion-messages`);
  await expectAccessible(page, 'app-detail-prompt');
  const apiKey = await createApiKey(page);
  const answer = await page.request.post(endpoint, {
    headers: { authorization: `Bearer ${apiKey}` },
    data: { inputs: { query: 'owls' }, response_mode: 'blocking', user: 'first-call' },
  });
  expect(answer.status(), await answer.text()).toBe(200);
  expect((await answer.json()).answer).toContain('A haiku about owls');
});

test('a new creator publishes a chat prompt app from the create screen and its first real call answers at the chat-messages endpoint shown', async ({
  page,
}) => {
  await signUp(page);
  const id = randomBytes(3).toString('hex');
  const slug = `chatty-${id}`;

  await page.goto('/applications/create?type=prompt');
  await page.getByLabel('Name').fill(`Chatty ${id}`);
  await page.getByLabel('Interaction Mode').selectOption('chat');
  await page.getByRole('button', { name: 'Create Application' }).click();
  await expect(page).toHaveURL(new RegExp(`/applications/${slug}$`));

  const endpoint = await shownEndpoint(page, slug);
  expect(endpoint).toBe(`/api/app/${slug}/chat-messages`);
  await page.getByRole('button', { name: 'Set as Live' }).click();
  await expect(page.getByRole('button', { name: 'Set as Live' })).toBeDisabled();
  await expectAccessible(page, 'app-detail-chat');

  // The console shows the same endpoint.
  await page.goto(`/api-test?app=${slug}`);
  await expect(page.getByRole('region', { name: 'Application Details' })).toContainText(`/api/app/${slug}/chat-messages`);

  const apiKey = await createApiKey(page);
  const answer = await page.request.post(endpoint, {
    headers: { authorization: `Bearer ${apiKey}` },
    data: { query: 'Hello there', inputs: {}, response_mode: 'blocking', user: 'first-chat' },
  });
  expect(answer.status(), await answer.text()).toBe(200);
  const body = await answer.json();
  expect(body.conversation_id).toMatch(/^[0-9a-f-]{36}$/);
  expect(body.answer).toContain('Hello there');
});

test('a new creator wraps a Dify completion app; the page and the console show completion-messages, and its first real call answers there', async ({
  page,
}) => {
  await signUp(page);
  const id = randomBytes(3).toString('hex');
  const slug = `summaries-${id}`;

  await page.goto('/applications/create?type=workflow');
  await page.getByLabel('Name').fill(`Summaries ${id}`);
  await page.getByLabel('Provider App ID').fill('dify-summaries');
  await page.getByLabel('Provider API Key').fill(DIFY_KEY);
  await page.getByLabel('Provider Base URL').fill(difyCompletionFakeUrl);
  await page.getByRole('button', { name: 'Test Connection' }).click();
  await expect(page.getByTestId('provider-test-result')).toContainText('Fake Summary Generator (completion)');
  await page.getByRole('button', { name: 'Create Application' }).click();
  await expect(page).toHaveURL(new RegExp(`/applications/${slug}$`));

  const endpoint = await shownEndpoint(page, slug);
  expect(endpoint).toBe(`/api/app/${slug}/completion-messages`);
  await expectAccessible(page, 'app-detail-dify-completion');

  const apiKey = await createApiKey(page);
  const answer = await page.request.post(endpoint, {
    headers: { authorization: `Bearer ${apiKey}` },
    data: { inputs: { text: 'Another story' }, response_mode: 'blocking', user: 'first-run' },
  });
  expect(answer.status(), await answer.text()).toBe(200);
  expect((await answer.json()).answer).toBe('Dify summary: Another story');

  await page.goto(`/api-test?app=${slug}`);
  const details = page.getByRole('region', { name: 'Application Details' });
  await expect(details).toContainText(`/api/app/${slug}/completion-messages`);
  // The console's own test of the endpoint: its Input Text fills the Dify app's required text input.
  const completion = page.getByRole('region', { name: 'Test Completion API' });
  await completion.getByLabel('Input Text').fill('A long story');
  await completion.getByRole('button', { name: 'Test Completion' }).click();
  await expect(completion.getByTestId('result-answer')).toHaveText('Dify summary: A long story');
  await expectAccessible(page, 'console-after-call');
});

test('a caller out of credit finds the way to add credit in one click from the error', async ({ page, browser }) => {
  // A creator's public app that costs more than a new account's credits.
  await signUp(page);
  const token = await accessTokenOf(page);
  const id = randomBytes(3).toString('hex');
  const created = await page.request.post('/api/app/', {
    headers: { authorization: `Bearer ${token}` },
    data: { name: `Pricey ${id}`, type: 'prompt', visibility: 'public', price_cents: 600 },
  });
  expect(created.status()).toBe(201);
  const { slug } = (await created.json()) as { slug: string };
  expect(
    (await page.request.patch(`/api/app/${slug}/update_status/`, { headers: { authorization: `Bearer ${token}` }, data: { status: 'live' } })).status(),
  ).toBe(200);

  const callerContext = await browser.newContext();
  const caller = await callerContext.newPage();
  await signUp(caller);
  await expect(caller.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Money' })).toBeVisible();
  await caller.goto(`/api-test?app=${slug}`);
  await expect(caller.getByRole('region', { name: 'Application Details' })).toContainText(`Pricey ${id}`);
  const completion = caller.getByRole('region', { name: 'Test Completion API' });
  await completion.getByLabel('Input Text').fill('Hello?');
  await completion.getByRole('button', { name: 'Test Completion' }).click();
  const error = completion.getByRole('alert');
  await expect(error).toContainText('Not enough credits for this call (600 cents): add credits on the Money page');
  await expectAccessible(caller, 'console-out-of-credit');

  await error.getByRole('link', { name: 'Add credits on the Money page' }).click();
  await expect(caller).toHaveURL(/\/money$/);
  await expect(caller.getByRole('heading', { name: 'Money', level: 1 })).toBeVisible();
  await expectAccessible(caller, 'money-page');
  await callerContext.close();
});
