// Issue 22 in the browser: the builder shows the model cost of one call next to the price, from
// the real price dataset, and follows the prompt as it is typed; the operator page is a 404 with
// no menu link for an account that ADMIN_EMAILS does not list.
import { expect, test } from '@playwright/test';
import { accessTokenOf, openUserMenu, signUp, typeInEditor } from './support.ts';

test('the builder shows the model prices and the worst case of one call beside the price', async ({ page }) => {
  await signUp(page);
  await page.goto('/prompt-builder');
  const panel = page.getByTestId('model-cost-panel');
  // gpt-4-turbo, the builder's default model, in the price dataset; 2,048 output tokens at most.
  await expect(panel.getByTestId('model-cost-prices')).toHaveText('$10 in · $30 out per million tokens');
  await expect(panel.getByTestId('model-cost-worst-case')).toContainText('16 input + 2,048 output tokens');
  await expect(panel.getByTestId('model-cost-typical')).toHaveText('No paid calls on this model yet');
  // A template variable the schema leaves out is declared as the gateway declares it (issue 61): a
  // string of at most 2,000 characters, so 8,000 bytes, not the whole 64 KiB of inputs.
  await typeInEditor(page, 'User Prompt Template', 'Summarize {{text}}');
  await expect(panel.getByTestId('model-cost-worst-case')).toContainText('8,026 input + 2,048 output tokens');
  await expect(panel).not.toContainText('no maximum length');
  // On every step of the builder, not only beside the price.
  await page.getByRole('tab', { name: 'Model Settings' }).click();
  await expect(panel.getByTestId('model-cost-worst-case')).toContainText('8,026 input');
  if (process.env.SCREENSHOTS_DIR) await page.screenshot({ path: `${process.env.SCREENSHOTS_DIR}/builder-cost-every-step.png`, fullPage: true });
  // Publishing at a price below the worst case asks, visibly, with its own button.
  await page.getByRole('tab', { name: 'Basic Info' }).click();
  await page.getByLabel('Prompt Name').fill('Summaries');
  await typeInEditor(page, 'System Prompt', 'Be brief.');
  await page.getByLabel('Price per Call (USD)').fill('0.01');
  await expect(panel.getByTestId('model-cost-margin')).toContainText('below the worst case');
  await page.getByRole('button', { name: 'Save & Publish' }).click();
  const warning = page.getByTestId('margin-warning');
  await expect(warning).toContainText('below the model cost of its largest possible call');
  if (process.env.SCREENSHOTS_DIR) await page.screenshot({ path: `${process.env.SCREENSHOTS_DIR}/builder-publish-confirm.png` });
  await warning.getByRole('button', { name: 'Publish at this price' }).click();
  await expect(page).toHaveURL(/\/applications$/, { timeout: 30_000 });
});

test('the operator page is a 404, with no menu link, for an account ADMIN_EMAILS does not list', async ({ page, request }) => {
  await signUp(page);
  await openUserMenu(page);
  await expect(page.getByRole('menuitem', { name: 'Profile' })).toBeVisible();
  await expect(page.getByRole('menuitem', { name: 'Operator' })).toHaveCount(0);
  await page.goto('/operator');
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
  const answer = await request.get('/api/operator/overview/?days=30', { headers: { authorization: `Bearer ${await accessTokenOf(page)}` } });
  expect(answer.status()).toBe(404);
});
