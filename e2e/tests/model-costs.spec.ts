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
  // A template variable without a maximum length may fill the whole 64 KiB of inputs.
  await typeInEditor(page, 'User Prompt Template', 'Summarize {{text}}');
  await expect(panel).toContainText('{{text}} has no maximum length');
  await expect(panel.getByTestId('model-cost-worst-case')).not.toContainText('16 input');
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
