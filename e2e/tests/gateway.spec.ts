import { randomBytes } from 'node:crypto';
import { expect, type Page, test } from '@playwright/test';
import { accessTokenOf, createLivePublicPrompt, signUp } from './support.ts';

/** Slugs are unique across accounts and tests run in parallel, so every name carries a random part. */
const unique = () => randomBytes(3).toString('hex');

/** A live public chat-mode prompt app, created through the management API with the page's own sign-in. */
async function createLiveChatPrompt(page: Page, name: string) {
  const headers = { authorization: `Bearer ${await accessTokenOf(page)}` };
  const created = await page.request.post('/api/app/', {
    headers,
    data: { name, type: 'prompt', interaction_mode: 'chat', visibility: 'public', price_cents: 25 },
  });
  expect(created.status()).toBe(201);
  const { slug } = (await created.json()) as { slug: string };
  expect((await page.request.patch(`/api/app/${slug}/update_status/`, { headers, data: { status: 'live' } })).status()).toBe(200);
  return slug;
}

function credits(page: Page) {
  return page.getByRole('region', { name: 'Account Information' }).getByText('Credits').locator('..');
}

test('a creator tests a paid prompt in the console and another user pays for a call with an API key', async ({ page, browser }) => {
  // User A publishes a public prompt at 25 cents a call.
  await signUp(page);
  const id = unique();
  const name = `Console Haiku ${id}`;
  const slug = `console-haiku-${id}`;
  await createLivePublicPrompt(page, name, '0.25', 'A prompt sold through the API test console');
  await expect(page).toHaveURL(new RegExp(`/applications/${slug}$`));

  // The console, preselected from ?app=, with A's apps in the dropdown.
  await page.goto(`/api-test?app=${slug}`);
  await expect(page.getByRole('heading', { name: 'API Test Console', level: 1 })).toBeVisible();
  await expect(page.getByText('Authentication Required')).toHaveCount(0);
  const dropdown = page.getByLabel('Application', { exact: true });
  await expect(dropdown.locator('option', { hasText: `${name} (prompt)` })).toHaveCount(1);
  await dropdown.selectOption(slug);
  await expect(page.getByLabel('App Slug')).toHaveValue(slug);
  const details = page.getByRole('region', { name: 'Application Details' });
  await expect(details).toContainText(name);
  await expect(details).toContainText('live');
  await expect(details).toContainText('$0.25 per call');
  await expect(details).toContainText(`/api/app/${slug}/completion-messages`);

  // A completion, answered by the OpenAI model fake e2e/start-server.mjs runs (a configured provider).
  const completion = page.getByRole('region', { name: 'Test Completion API' });
  await completion.getByLabel('Input Text').fill('owls at dusk');
  await completion.getByRole('button', { name: 'Test Completion' }).click();
  await expect(completion.getByText('Response Received')).toBeVisible();
  await expect(completion.getByText('Input Tokens')).toBeVisible();
  await expect(completion.getByText('Output Tokens')).toBeVisible();
  await expect(completion.getByTestId('result-input-tokens')).toHaveText(/^[1-9]\d*$/);
  await expect(completion.getByTestId('result-output-tokens')).toHaveText(/^[1-9]\d*$/);
  await expect(completion.getByTestId('result-answer')).not.toBeEmpty();

  // A completion app's console offers only its own mode (issue 61 trap 9): no chat tester to call it wrongly.
  const chat = page.getByRole('region', { name: 'Test Chat API' });
  await expect(chat).toHaveCount(0);

  // A chat app (made through the API), then a chat and a follow-up in the same conversation.
  const chatSlug = await createLiveChatPrompt(page, `Console Chat ${id}`);
  await page.goto(`/api-test?app=${chatSlug}`);
  await expect(page.getByLabel('App Slug')).toHaveValue(chatSlug);
  await expect(page.getByRole('region', { name: 'Application Details' })).toContainText(`Console Chat ${id}`);
  await chat.getByLabel('Chat Query').fill('Hello there');
  await chat.getByRole('button', { name: 'Test Chat' }).click();
  await expect(chat.getByText('Response Received')).toBeVisible();
  const conversationId = (await chat.getByTestId('result-conversation-id').textContent()) ?? '';
  expect(conversationId).toMatch(/^[0-9a-f-]{36}$/);
  const firstMessageId = (await chat.getByTestId('result-id').textContent()) ?? '';
  await expect(chat.getByTestId('current-conversation-id')).toHaveText(conversationId);

  await chat.getByLabel('Chat Query').fill('Tell me more');
  await chat.getByRole('button', { name: 'Test Chat' }).click();
  await expect(chat.getByTestId('result-id')).not.toHaveText(firstMessageId);
  await expect(chat.getByText('Response Received')).toBeVisible();
  await expect(chat.getByTestId('result-conversation-id')).toHaveText(conversationId);

  // User B, in a browser of their own, creates an API key on the profile page.
  const contextB = await browser.newContext();
  await contextB.grantPermissions(['clipboard-read', 'clipboard-write']);
  const pageB = await contextB.newPage();
  try {
    await signUp(pageB);
    await pageB.goto('/profile');
    await expect(credits(pageB)).toContainText('$5.00');
    const keys = pageB.getByRole('region', { name: 'API Keys' });
    await expect(keys.getByText('No API keys yet')).toBeVisible();
    await keys.getByLabel('Key Name').fill('Console key');
    await keys.getByRole('button', { name: 'Create Key' }).click();
    await expect(keys.getByText("Copy this key now. You won't be able to see it again.")).toBeVisible();
    const apiKey = (await keys.getByTestId('new-api-key').textContent()) ?? '';
    expect(apiKey).toMatch(/^tb_[A-Za-z0-9]{20,}$/);
    await keys.getByRole('button', { name: 'Copy' }).click();
    await expect(keys.getByRole('button', { name: 'Copied!' })).toBeVisible();
    expect(await pageB.evaluate(() => navigator.clipboard.readText())).toBe(apiKey);
    const keyRow = keys.getByRole('row', { name: /Console key/ });
    await expect(keyRow).toContainText('Never');

    // B calls A's app by slug with the key.
    await pageB.goto('/api-test');
    await pageB.getByLabel('App Slug').fill(slug);
    await pageB.getByLabel('API Key').fill(apiKey);
    await expect(pageB.getByRole('region', { name: 'Application Details' })).toContainText('$0.25 per call');
    const paidCompletion = pageB.getByRole('region', { name: 'Test Completion API' });
    await paidCompletion.getByLabel('Input Text').fill('a paid haiku, please');
    await paidCompletion.getByRole('button', { name: 'Test Completion' }).click();
    await expect(paidCompletion.getByText('Response Received')).toBeVisible();
    await expect(paidCompletion.getByTestId('result-output-tokens')).toHaveText(/^[1-9]\d*$/);

    // B paid 25 cents, on that key.
    await pageB.goto('/profile');
    await expect(credits(pageB)).toContainText('$4.75');
    await expect(keyRow).toContainText('$0.25');
    await expect(keyRow).not.toContainText('Never');
  } finally {
    await contextB.close();
  }

  // A earned them; A's own calls were free.
  await page.goto('/dashboard');
  await expect(page.getByText('Total Revenue').locator('..')).toContainText('$0.25');
});
