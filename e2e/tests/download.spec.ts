import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { signUp } from './support.ts';

test('Download App on the detail page saves {slug}-completion-app.zip', async ({ page }) => {
  await signUp(page);
  const id = randomBytes(3).toString('hex');
  const name = `Zip Me ${id}`;
  await page.goto('/applications/create?type=prompt');
  await page.getByLabel('Name').fill(name);
  await page.getByRole('button', { name: 'Create Application' }).click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();

  const button = page.getByRole('button', { name: 'Download App' });
  const saved = page.waitForEvent('download');
  await button.click();
  const download = await saved;
  expect(download.suggestedFilename()).toBe(`zip-me-${id}-completion-app.zip`);
  const file = await download.path();
  const bytes = await readFile(file);
  // A zip archive: local file header signature.
  expect(bytes.subarray(0, 4).toString('hex')).toBe('504b0304');
  await expect(button).toHaveText('Download App');
  await expect(button).toBeEnabled();
});
