// Bring your own key (issue 22 item 6): a creator adds their own OpenAI-compatible key in the profile
// (Test Connection against their own upstream, a second OpenAI fake on its own port), then sets a
// prompt app's Model key to "My own key" on the detail page and in the builder, and Test Prompt is
// answered through it. SCREENSHOTS_DIR saves the profile section and the app's key choice.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { baseURL } from '../playwright.config.ts';
import { accessTokenOf, screenshotsInto, signUp } from './support.ts';

const issue61Shot = screenshotsInto(process.env.ISSUE61_SCREENSHOTS_DIR);

const creatorPort = Number(new URL(baseURL).port) + 3000;
const creatorKey = 'sk-creator-own-e2e-5678';
let creatorFake: ChildProcess;

test.beforeAll(async () => {
  creatorFake = spawn(process.execPath, ['--import', 'tsx', 'src/test-support/fakes/openai-fake-main.ts', String(creatorPort), creatorKey], {
    cwd: path.resolve(import.meta.dirname, '../../server'),
    stdio: 'inherit',
  });
  await expect(async () => {
    const answer = await fetch(`http://127.0.0.1:${creatorPort}/v1/chat/completions`, { method: 'POST' }).catch(() => null);
    expect(answer).not.toBeNull();
  }).toPass({ timeout: 30_000 });
});
test.afterAll(() => {
  creatorFake?.kill();
});

const shot = (name: string) => (process.env.SCREENSHOTS_DIR ? { path: path.join(process.env.SCREENSHOTS_DIR, name) } : {});

test('a creator adds their own key, tests it, and runs an app on it', async ({ page }) => {
  await signUp(page);
  await page.goto('/profile');
  const section = page.getByRole('region', { name: 'Your provider keys' });
  const openai = section.getByRole('form', { name: 'OpenAI-compatible' });
  await expect(openai.getByText('Not set')).toBeVisible();
  await openai.getByLabel('Base URL').fill(`http://127.0.0.1:${creatorPort}/v1`);

  // A wrong key fails the test; the right one passes; Save shows it masked.
  await openai.getByLabel('API key').fill('sk-wrong-key-0000');
  await openai.getByRole('button', { name: 'Test Connection' }).click();
  await expect(openai.getByText(/Connection failed: .*401/)).toBeVisible();
  await openai.getByLabel('API key').fill(creatorKey);
  await openai.getByRole('button', { name: 'Test Connection' }).click();
  // Issue 61: the test says it tested the key as typed, which is not saved yet, and nothing is saved.
  await expect(openai.getByTestId('own-key-test-openai')).toHaveText(/^Tested the settings as entered \(not saved\): ✓ Connected: gpt-4-turbo answered/);
  await expect(openai.getByText('Not saved yet: apps use these settings only after Save OpenAI-compatible key.')).toBeVisible();
  await expect(openai.getByTestId('own-key-state-openai')).toHaveText('Not set');
  await issue61Shot(page, 'issue-61-own-key-tested-unsaved');
  // The profile's own Save is not the key's: the key has its own, named button.
  await expect(page.getByRole('button', { name: 'Save', exact: true })).toHaveCount(0);
  await openai.getByRole('button', { name: 'Save OpenAI-compatible key' }).click();
  await expect(openai.getByTestId('own-key-saved-openai')).toHaveText('OpenAI-compatible key saved (••••••••5678): apps set to My own key use it now.');
  await expect(openai.getByTestId('own-key-state-openai')).toContainText('Saved key ••••••••5678');
  await openai.getByRole('button', { name: 'Test Connection' }).click();
  await expect(openai.getByTestId('own-key-test-openai')).toHaveText(/^Tested the saved key: ✓ Connected: gpt-4-turbo answered/);
  await issue61Shot(page, 'issue-61-own-key-saved');
  expect((await new AxeBuilder({ page }).analyze()).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
  await section.screenshot(shot('profile-provider-keys.png'));

  // A prompt app chooses "My own key" next to its model on the detail page.
  const token = await accessTokenOf(page);
  const created = await page.request.post('/api/app/', {
    headers: { authorization: `Bearer ${token}` },
    data: { name: 'Own Key Haiku', type: 'prompt', price_cents: 5 },
  });
  expect(created.status()).toBe(201);
  const { slug } = (await created.json()) as { slug: string };
  await page.goto(`/prompts/${slug}`);
  await page.getByRole('tab', { name: 'Prompt Config' }).click();
  await page.getByLabel('Model key').selectOption('own');
  await expect(page.getByText('Calls use your own provider key')).toBeVisible();
  await page.getByRole('button', { name: 'Save Changes' }).click();
  await expect
    .poll(
      async () =>
        ((await (await page.request.get(`/api/app/${slug}/prompt/`, { headers: { authorization: `Bearer ${token}` } })).json()) as { key_source: string })
          .key_source,
    )
    .toBe('own');
  await page.getByRole('region', { name: 'Model Settings' }).screenshot(shot('detail-model-key.png'));

  // The builder (edit mode) shows the same choice next to the model, and its Test Prompt is answered on the creator's key.
  await page.goto(`/applications/${slug}/edit`);
  await page.getByRole('tab', { name: 'Model Settings' }).click();
  await expect(page.getByLabel('Model key')).toHaveValue('own');
  await page.screenshot(shot('builder-model-key.png'));
  await page.getByRole('tab', { name: 'Preview & Test' }).click();
  await page.getByLabel('query', { exact: true }).fill('owls');
  await page.getByRole('button', { name: 'Test Prompt' }).click();
  await expect(page.getByTestId('model-answer')).toContainText('Fake model (gpt-4-turbo) answers: owls');

  // With the creator's upstream gone the test fails: it never fell back to the platform's upstream.
  creatorFake.kill();
  await page.getByRole('button', { name: 'Test Prompt' }).click();
  await expect(page.getByText(/Could not reach Your OpenAI-compatible provider/)).toBeVisible();
});
