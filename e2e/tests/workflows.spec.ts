import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { difyFakeUrl } from '../playwright.config.ts';
import { signUp } from './support.ts';

const DIFY_KEY = 'app-e2e-dify-key';

test('a creator wraps a Dify app, tests and saves it, publishes it, chats with it from the console, sees it in analytics and rolls back a version', async ({
  page,
}) => {
  await signUp(page);
  const id = randomBytes(3).toString('hex');
  const name = `Support Flow ${id}`;
  const slug = `support-flow-${id}`;

  // Create: Dify base URL next to app id and key, tested before creating.
  await page.goto('/applications/create?type=workflow');
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Description').fill('Wraps a Dify chatflow');
  await page.getByLabel('Visibility').selectOption('public');
  await page.getByLabel('Provider App ID').fill('dify-e2e-app');
  await page.getByLabel('Provider API Key').fill(DIFY_KEY);
  await expect(page.getByLabel('Provider Base URL')).toHaveValue('https://api.dify.ai/v1');
  await page.getByLabel('Provider Base URL').fill(difyFakeUrl);
  await page.getByRole('button', { name: 'Test Connection' }).click();
  const created = page.getByTestId('provider-test-result');
  await expect(created).toContainText('Configuration Valid');
  await expect(created).toContainText('Fake Support Chatflow (advanced-chat)');
  await page.getByLabel('Price per API call (USD)').fill('0.30');
  await page.getByRole('button', { name: 'Create Application' }).click();
  await expect(page).toHaveURL(new RegExp(`/applications/${slug}$`));

  // The workflow detail screen: test the configuration, change a setting, save.
  await page.goto(`/workflows/${slug}`);
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Back to List' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Download App' })).toBeVisible();
  await page.getByRole('tab', { name: 'Provider Config' }).click();
  await expect(page.getByTestId('provider-card')).toContainText('Dify');
  await expect(page.getByLabel('API Key *')).toHaveAttribute('type', 'password');
  await expect(page.getByLabel('API Key *')).toHaveValue(/^•+-key$|^•+y-key$|^•+/);
  await page.getByRole('button', { name: 'Test Config' }).click();
  const result = page.getByTestId('workflow-test-result');
  await expect(result).toContainText('Configuration Valid');
  await expect(result).toContainText('Fake Support Chatflow');
  await expect(result.getByRole('cell', { name: 'customer', exact: true })).toBeVisible();
  await page.screenshot({ path: 'test-results/workflow-detail-provider-config.png', fullPage: true });
  await page.getByLabel('Timeout (seconds)').fill('120');
  await page.getByRole('tab', { name: 'Basic Settings' }).click();
  await page.getByLabel('Status').selectOption('live');
  await page.getByRole('button', { name: 'Save Changes' }).click();
  await expect(page.getByText('Changes saved')).toBeVisible();
  await expect(page.getByTestId('workflow-badges')).toContainText('live');
  await expect(page.getByTestId('workflow-badges')).toContainText('Chatflow');

  // The console: a chat and a follow-up in the same conversation, answered by the Dify app.
  await page.goto(`/api-test?app=${slug}`);
  const details = page.getByRole('region', { name: 'Application Details' });
  await expect(details).toContainText(name);
  await expect(details).toContainText(`/api/app/${slug}/chat-messages`);
  const chat = page.getByRole('region', { name: 'Test Chat API' });
  await chat.getByLabel('Chat Query').fill('Hello Dify');
  await chat.getByRole('button', { name: 'Test Chat' }).click();
  await expect(chat.getByText('Response Received')).toBeVisible();
  await expect(chat.getByTestId('result-answer')).toHaveText('Dify echo: Hello Dify');
  const conversationId = (await chat.getByTestId('result-conversation-id').textContent()) ?? '';
  expect(conversationId).toMatch(/^[0-9a-f-]{36}$/);
  const firstId = (await chat.getByTestId('result-id').textContent()) ?? '';
  await chat.getByLabel('Chat Query').fill('Tell me more');
  await chat.getByRole('button', { name: 'Test Chat' }).click();
  await expect(chat.getByTestId('result-id')).not.toHaveText(firstId);
  await expect(chat.getByTestId('result-answer')).toHaveText('Dify echo: Tell me more');
  await expect(chat.getByTestId('result-conversation-id')).toHaveText(conversationId);

  // Analytics count the workflow app's calls.
  await page.goto(`/applications/${slug}/analytics`);
  await expect(page.getByRole('heading', { name: `${name} Analytics`, level: 1 })).toBeVisible();
  await expect(page.getByTestId('stat-Total Invocations')).toContainText('2');
  await expect(page.getByRole('region', { name: 'Recent Invocations' }).getByTestId('invocation-row')).toHaveCount(2);

  // Version history: roll back to the initial version (timeout 300 again).
  await page.goto(`/workflows/${slug}`);
  await page.getByRole('tab', { name: 'Version History' }).click();
  await expect(page.getByTestId('workflow-version-2')).toContainText('Updated via UI');
  await page.screenshot({ path: 'test-results/workflow-detail-versions.png', fullPage: true });
  await page.getByRole('button', { name: 'Roll back to version 1' }).click();
  await expect(page.getByTestId('workflow-version-3')).toContainText('Rolled back to version 1');
  await page.getByRole('tab', { name: 'Provider Config' }).click();
  await expect(page.getByLabel('Timeout (seconds)')).toHaveValue('300');
});

test('a workflow that does not exist says Workflow not found', async ({ page }) => {
  await signUp(page);
  await page.goto('/workflows/no-such-workflow');
  await expect(page.getByText('Workflow not found')).toBeVisible();
});
