import { expect, test } from '@playwright/test';
import { accessTokenOf, signUp } from './support.ts';

// Issue 26: a creator turns caller-supplied tools and response formats off for one app in its settings.
test('a creator turns off caller tools and response formats in the prompt settings', async ({ page, request }) => {
  await signUp(page);
  const token = await accessTokenOf(page);
  const headers = { authorization: `Bearer ${token}` };
  const created = await request.post('/api/app/', { headers, data: { name: 'Tool-free Haiku', type: 'prompt', visibility: 'public', price_cents: 10 } });
  expect(created.status()).toBe(201);
  const slug = (await created.json()).slug as string;

  await page.goto(`/prompts/${slug}`);
  await expect(page.getByRole('heading', { name: 'Tool-free Haiku', level: 1 })).toBeVisible();
  const toggle = page.getByRole('checkbox', { name: 'Let callers send tools and response formats' });
  await expect(toggle).toBeChecked();
  await toggle.uncheck();
  await page.getByRole('button', { name: 'Save Changes' }).click();
  await expect(page.getByText('Changes saved')).toBeVisible();
  await toggle.scrollIntoViewIfNeeded();
  await page.screenshot({ path: '../docs/screenshots/issue-26/prompt-settings-caller-tools.png' });

  const app = await request.get(`/api/app/${slug}`, { headers });
  expect((await app.json()).caller_tools).toBe(false);
  await page.reload();
  await expect(page.getByRole('checkbox', { name: 'Let callers send tools and response formats' })).not.toBeChecked();
});
