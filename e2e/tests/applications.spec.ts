import { randomBytes } from 'node:crypto';
import { expect, type Page, test } from '@playwright/test';
import { signUp } from './support.ts';

/** Slugs are unique across accounts and tests run in parallel, so every name carries a random part. */
const unique = () => randomBytes(3).toString('hex');

async function createApp(page: Page, fields: { type: 'prompt' | 'workflow'; name: string; price: string }) {
  await page.goto(`/applications/create?type=${fields.type}`);
  await expect(page.getByRole('heading', { name: 'Create New Prompt or Workflow Application' })).toBeVisible();
  await page.getByLabel('Name').fill(fields.name);
  await page.getByLabel('Description').fill(`The ${fields.type} of the e2e test`);
  if (fields.type === 'workflow') {
    await page.getByLabel('Provider App ID').fill('dify-app-123');
    await page.getByLabel('Provider API Key').fill('app-secret-key');
  }
  await page.getByLabel('Price per API call (USD)').fill(fields.price);
  await page.getByRole('button', { name: 'Create Application' }).click();
  // A price above $1.00 asks to be confirmed (issue 61).
  if (Number(fields.price) > 1) await page.getByRole('button', { name: `Create at $${Number(fields.price).toFixed(2)} per call` }).click();
}

test('a creator creates, manages, duplicates, filters and deletes applications', async ({ page }) => {
  await signUp(page);
  const id = unique();
  const promptName = `Haiku ${id}`;
  const promptSlug = `haiku-${id}`;
  const workflowName = `Support Flow ${id}`;
  const workflowSlug = `support-flow-${id}`;

  // An empty dashboard: the first-run panel says where to start (issue 61).
  await expect(page.getByRole('heading', { name: 'Start here' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Build a prompt app' })).toBeVisible();

  // The create form: spec defaults and the live dollar display.
  await page.getByRole('link', { name: 'Create Application' }).click();
  await expect(page).toHaveURL(/\/applications\/create$/);
  await expect(page.getByLabel('Type')).toHaveValue('prompt');
  await expect(page.getByLabel('Interaction Mode')).toHaveValue('completion');
  await expect(page.getByLabel('Visibility')).toHaveValue('private');
  await expect(page.getByLabel('Price per API call (USD)')).toHaveValue('1.00');
  await expect(page.getByText('$1.00 per call')).toBeVisible();
  await page.getByLabel('Price per API call (USD)').fill('0.25');
  await expect(page.getByText('$0.25 per call')).toBeVisible();
  await page.getByLabel('Price per API call (USD)').fill('2.50');
  await expect(page.getByText('$2.50 per call')).toBeVisible();
  await page.getByLabel('Price per API call (USD)').fill('0');
  await page.getByRole('button', { name: 'Create Application' }).click();
  await expect(page.getByText('Name is required.')).toBeVisible();
  await expect(page.getByText('Price must be above $0 (sub-cent prices are fine: 0.005 is half a cent).')).toBeVisible();

  await createApp(page, { type: 'prompt', name: promptName, price: '2.50' });
  await expect(page).toHaveURL(new RegExp(`/applications/${promptSlug}$`));
  await expect(page.getByRole('heading', { name: promptName, level: 1 })).toBeVisible();

  await createApp(page, { type: 'workflow', name: workflowName, price: '0.75' });
  await expect(page).toHaveURL(new RegExp(`/applications/${workflowSlug}$`));
  // Its Dify app was never asked for its mode (no Test Connection): the endpoint follows the app's interaction mode (issue 25).
  await expect(page.getByTestId('api-endpoint')).toHaveText(`POST /api/app/${workflowSlug}/completion-messages`);

  // Both on the dashboard, with the actions of their type.
  await page.goto('/dashboard');
  await expect(page.getByText('Total Applications').locator('..')).toContainText('2');
  const promptRow = page.getByTestId(`app-row-${promptSlug}`);
  const workflowRow = page.getByTestId(`app-row-${workflowSlug}`);
  await expect(promptRow.getByRole('link', { name: 'Manage' })).toHaveAttribute('href', `/prompts/${promptSlug}`);
  await expect(workflowRow.getByRole('link', { name: 'Manage' })).toHaveAttribute('href', `/workflows/${workflowSlug}`);
  await expect(promptRow.getByRole('link', { name: 'Analytics' })).toHaveAttribute('href', `/applications/${promptSlug}/analytics`);
  await expect(promptRow.getByRole('button', { name: 'Download' })).toBeVisible();
  await expect(promptRow).toContainText('prompt');
  await expect(workflowRow).toContainText('workflow');

  // The prompt app's detail page.
  await promptRow.getByRole('link', { name: promptName }).click();
  await expect(page).toHaveURL(new RegExp(`/applications/${promptSlug}$`));
  await expect(page.getByTestId('api-endpoint')).toHaveText(`POST /api/app/${promptSlug}/completion-messages`);
  await expect(page.getByRole('link', { name: 'Test API' })).toHaveAttribute('href', `/api-test?app=${promptSlug}`);
  const details = page.getByRole('region', { name: 'Details' });
  await expect(details).toContainText('$2.50');

  await page.getByRole('button', { name: 'Edit' }).click();
  await page.getByLabel('Price per API call (USD)').fill('3');
  await expect(page.getByText('$3.00 per call')).toBeVisible();
  await page.getByRole('button', { name: 'Save Changes' }).click();
  await page.getByRole('button', { name: 'Save at $3.00 per call' }).click();
  await expect(page.getByRole('button', { name: 'Save Changes' })).toBeHidden();
  await expect(details).toContainText('$3.00');

  const badges = page.getByTestId('app-badges');
  await expect(badges).toContainText('draft');
  await expect(page.getByRole('button', { name: 'Set as Draft' })).toBeDisabled();
  await page.getByRole('button', { name: 'Set as Live' }).click();
  await expect(page.getByRole('button', { name: 'Set as Live' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Set as Draft' })).toBeEnabled();
  await expect(badges).toContainText('live');

  await page.getByRole('button', { name: 'Duplicate' }).click();
  await expect(page).toHaveURL(new RegExp(`/applications/${promptSlug}-copy$`));
  await expect(page.getByRole('heading', { name: `${promptName} copy`, level: 1 })).toBeVisible();
  await expect(badges).toContainText('draft');
  await expect(page.getByRole('button', { name: 'Set as Draft' })).toBeDisabled();

  // The prompt list, filtered by status.
  await page.goto('/prompts');
  await expect(page.getByRole('heading', { name: 'Prompt Applications', level: 1 })).toBeVisible();
  await expect(page.getByRole('link', { name: promptName, exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: `${promptName} copy` })).toBeVisible();
  await expect(page.getByText(workflowName)).toHaveCount(0);
  await page.getByLabel('Status').selectOption('live');
  await expect(page.getByRole('link', { name: promptName, exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: `${promptName} copy` })).toHaveCount(0);
  await page.getByLabel('Status').selectOption('draft');
  await expect(page.getByRole('link', { name: `${promptName} copy` })).toBeVisible();
  await expect(page.getByRole('link', { name: promptName, exact: true })).toHaveCount(0);

  // Delete the copy through the confirm dialog.
  await page.goto(`/applications/${promptSlug}-copy`);
  let confirmText = '';
  page.once('dialog', (dialog) => {
    confirmText = dialog.message();
    void dialog.accept();
  });
  await page.getByRole('button', { name: 'Delete Application' }).click();
  await expect(page).toHaveURL(/\/applications$/);
  expect(confirmText).toBe('Are you sure you want to delete this application? This action cannot be undone.');
  await expect(page.getByTestId(`app-row-${promptSlug}`)).toBeVisible();
  await expect(page.getByTestId(`app-row-${promptSlug}-copy`)).toHaveCount(0);
  await expect(page.getByText('Total Applications').locator('..')).toContainText('2');
});

test('the workflow list shows workflow cards and filters them', async ({ page }) => {
  await signUp(page);
  const id = unique();
  await createApp(page, { type: 'workflow', name: `Flow ${id}`, price: '0.05' });
  await expect(page).toHaveURL(new RegExp(`/applications/flow-${id}$`));

  await page.goto('/workflows');
  await expect(page.getByRole('heading', { name: 'Workflow Applications', level: 1 })).toBeVisible();
  const card = page.getByRole('article').filter({ hasText: `Flow ${id}` });
  await expect(card).toContainText(`flow-${id}`);
  await expect(card).toContainText('$0.05');
  await expect(card.getByRole('link', { name: 'Manage' })).toHaveAttribute('href', `/workflows/flow-${id}`);
  await expect(card.getByRole('link', { name: 'Analytics' })).toHaveAttribute('href', `/applications/flow-${id}/analytics`);

  await page.getByLabel('Visibility').selectOption('public');
  await expect(page.getByText('No workflows')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Create New Workflow' })).toHaveAttribute('href', '/applications/create?type=workflow');
});
