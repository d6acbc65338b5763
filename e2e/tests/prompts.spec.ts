import { execSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { expect, type Locator, type Page, test } from '@playwright/test';
import { signUp, typeInEditor } from './support.ts';

const previewOf = (page: Page, title: string): Locator => page.getByRole('heading', { name: title, exact: true }).locator('xpath=following-sibling::pre[1]');

test('a creator builds a prompt, tests it, publishes it and calls it with the curl command the builder shows', async ({ page, context }) => {
  // Monaco is bundled with the app: nothing may be fetched from anywhere but this server.
  const external: string[] = [];
  await context.route('**/*', (route) => {
    const { hostname } = new URL(route.request().url());
    if (hostname === 'localhost' || hostname === '127.0.0.1') return route.continue();
    external.push(route.request().url());
    return route.abort();
  });

  await signUp(page);
  const id = randomBytes(3).toString('hex');
  const name = `Owl Haiku ${id}`;
  const slug = `owl-haiku-${id}`;

  // Basic Info: the slug follows the name; the prompts go into Monaco editors.
  await page.goto('/prompt-builder');
  await expect(page.getByRole('heading', { name: 'Create New Prompt', level: 1 })).toBeVisible();
  await expect(page.getByRole('tab', { name: 'Basic Info' })).toHaveAttribute('aria-selected', 'true');
  await page.getByLabel('Prompt Name').fill(name);
  await expect(page.getByLabel('URL Slug')).toHaveValue(slug);
  await page.getByLabel('Description').fill('Short poems about anything');
  await expect(page.getByLabel('Price per Call (USD)')).toHaveValue('1.00');
  await typeInEditor(page, 'System Prompt', 'You write short haiku.');
  await typeInEditor(page, 'User Prompt Template', 'Write a haiku about {{topic}}.');

  // Input/Output Schema: declare the topic field.
  await page.getByRole('tab', { name: 'Input/Output Schema' }).click();
  await page.getByRole('button', { name: 'Add Input Field' }).click();
  const topic = page.getByRole('group', { name: 'Input field 1' });
  await topic.getByLabel('Name').fill('topic');
  await topic.getByLabel('Type').selectOption('string');
  await topic.getByLabel('Description').fill('What the haiku is about');
  await topic.getByLabel('Required').check();

  // Back in the template: "{{" offers the declared field, and hovering a variable describes it.
  await page.getByRole('tab', { name: 'Basic Info' }).click();
  await typeInEditor(page, 'User Prompt Template', ' Mention {{');
  const suggestions = page.locator('.suggest-widget');
  await expect(suggestions).toContainText('topic');
  await page.keyboard.press('Enter');
  const template = page.getByRole('group', { name: 'User Prompt Template' });
  await expect(suggestions).toBeHidden();
  // {{topic}} is one highlighted token: hovering it shows the declared field.
  const variable = template
    .locator('.view-lines span span')
    .filter({ hasText: /^\{\{topic\}\}$/ })
    .first();
  await expect(async () => {
    await page.mouse.move(0, 0);
    await variable.hover();
    await expect(page.locator('.monaco-hover').filter({ hasText: 'What the haiku is about' })).toBeVisible({ timeout: 2000 });
  }).toPass();

  // Preview & Test: a real test run of the unsaved draft (nothing is saved) shows the rendering and the answer.
  await page.getByRole('tab', { name: 'Preview & Test' }).click();
  await expect(previewOf(page, 'System Prompt')).toHaveText('You write short haiku.');
  await expect(previewOf(page, 'User Prompt Template')).toHaveText('Write a haiku about {{topic}}. Mention {{topic}}');
  await page.getByLabel('topic', { exact: true }).fill('owls');
  await page.getByRole('button', { name: 'Test Prompt' }).click();
  const result = page.getByTestId('test-result');
  await expect(result.getByText('Template Valid')).toBeVisible();
  await expect(result.getByTestId('rendered-template')).toHaveText('Write a haiku about owls. Mention owls');
  await expect(result.getByRole('list', { name: 'Detected variables' })).toHaveText('topic');
  await expect(result.getByTestId('model-answer')).not.toBeEmpty();
  await expect(result.getByTestId('token-usage')).toContainText(/Token usage: \d+ input, \d+ output/);

  const curlCommand = (await page.getByTestId('curl-example').textContent()) ?? '';
  const origin = new URL(page.url()).origin;
  expect(curlCommand).toContain(`curl -X POST ${origin}/v1/invoke/${slug}`);
  expect(curlCommand).toContain('-H "Authorization: Bearer YOUR_API_KEY"');
  expect(curlCommand).toContain(`-d '{"topic":"owls"}'`);

  // Save & Publish goes live and back to the applications, once the creator confirms a price below the
  // model cost of the largest possible call (issue 61: asked visibly, with its own button).
  await page.getByRole('button', { name: 'Save & Publish' }).click();
  await page.getByRole('alert').filter({ hasText: 'Confirm to publish at this price' }).getByRole('button', { name: 'Publish at this price' }).click();
  await expect(page).toHaveURL(/\/applications$/);

  // The prompt detail page renders the saved template with sample inputs.
  await page.goto(`/prompts/${slug}`);
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
  await expect(page.getByTestId('prompt-badges')).toContainText('live');
  await page.getByRole('tab', { name: 'Prompt Config' }).click();
  await expect(page.getByRole('group', { name: 'Prompt Template' }).locator('.monaco-editor')).toBeVisible();
  await page.getByRole('button', { name: 'Test Prompt' }).click();
  await expect(page.getByTestId('test-result').getByText('Template Valid')).toBeVisible();
  await expect(page.getByTestId('rendered-template')).toHaveText('Write a haiku about sample topic. Mention sample topic');

  // An API key from the profile page makes the builder's curl command work as pasted.
  await page.goto('/profile');
  const keys = page.getByRole('region', { name: 'API Keys' });
  await keys.getByLabel('Key Name').fill('Curl key');
  await keys.getByRole('button', { name: 'Create Key' }).click();
  const apiKey = (await keys.getByTestId('new-api-key').textContent()) ?? '';
  expect(apiKey).toMatch(/^tb_/);

  const output = execSync(`${curlCommand.replace('YOUR_API_KEY', apiKey)} --silent --show-error --fail-with-body`, { shell: '/bin/sh', encoding: 'utf8' });
  const answer = JSON.parse(output) as { answer: string; metadata: { usage: { input_tokens: number } } };
  expect(answer.answer).toContain('Write a haiku about owls. Mention owls');
  expect(answer.metadata.usage.input_tokens).toBeGreaterThan(0);

  expect(external).toEqual([]);
});
