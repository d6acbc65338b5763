// Issue 60 in Chromium: the create form chooses a price form (per call with a sub-cent price, per
// token, cost plus); a per-token app shows its rate card on its pages, and the prompt's cost panel
// warns when a per-token rate is below the model's. PRICE_FORMS_SCREENSHOTS_DIR keeps a screenshot
// of each (docs/screenshots/price-forms-*.png).
import { randomBytes } from 'node:crypto';
import { AxeBuilder } from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { accessTokenOf, screenshotsInto, signUp } from './support.ts';

const fullPage = screenshotsInto(process.env.PRICE_FORMS_SCREENSHOTS_DIR);
/** axe-core: no serious or critical violation (as accessibility.spec.ts asks of every screen). */
async function axeProblems(page: Page): Promise<string[]> {
  return (await new AxeBuilder({ page }).analyze()).violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`);
}

/** From the top: a full-page screenshot of a scrolled page draws the sticky header mid-page. */
const shot = async (page: Page, name: string) => {
  await page.evaluate(() => window.scrollTo(0, 0));
  await fullPage(page, name);
};

test('a per-token app is created through the chooser and shows its rate card and its margin', async ({ page }) => {
  await signUp(page);
  const id = randomBytes(3).toString('hex');
  await page.goto('/applications/create');
  await page.getByLabel('Name').fill(`Tokens ${id}`);

  // Per call: sub-cent prices are typed as they are.
  await page.getByLabel('Price per API call (USD)').fill('0.005');
  await expect(page.getByTestId('price-display')).toHaveText('$0.005 per call');
  await shot(page, 'price-forms-per-call');

  // Cost plus: the markup and an optional fee.
  await page.getByLabel('Cost plus').check();
  await page.getByLabel('Fee per call (USD, optional)').fill('0.001');
  await expect(page.getByTestId('price-form-preview')).toContainText('model cost × 1.25');
  await shot(page, 'price-forms-cost-plus');

  // Per token: rates per million tokens, below the model's output rate ($30 for gpt-4-turbo).
  await page.getByLabel('Per token').check();
  await page.getByLabel('Input per million tokens (USD)').fill('12');
  await page.getByLabel('Output per million tokens (USD)').fill('20');
  await page.getByLabel('Most per call (USD, optional)').fill('0.50');
  await expect(page.getByTestId('price-form-preview')).toContainText('$20.00 per million output tokens');
  await shot(page, 'price-forms-per-token');
  expect(await axeProblems(page)).toEqual([]);
  await page.getByRole('button', { name: 'Create Application' }).click();
  await expect(page).toHaveURL(new RegExp(`/applications/tokens-${id}$`));

  const app = await (await page.request.get(`/api/app/tokens-${id}/`, { headers: { authorization: `Bearer ${await accessTokenOf(page)}` } })).json();
  expect(app.pricing).toMatchObject({ form: 'per_token', input_per_mtok_micros: 12_000_000, output_per_mtok_micros: 20_000_000, max_call_micros: 500_000 });
  await expect(page.getByRole('region', { name: 'Details' })).toContainText('$12.00 per million input tokens · $20.00 per million output tokens');

  // The prompt's page: the card read-only where the price was, and the margin under it.
  await page.goto(`/prompts/tokens-${id}`);
  await expect(page.getByTestId('rate-card')).toContainText('$20.00 per million output tokens');
  const panel = page.getByTestId('model-cost-panel');
  await expect(panel.getByTestId('model-cost-form-warning')).toContainText("Your output price ($20.00 per million tokens) is below the model's ($30.00)");
  await expect(panel.getByTestId('margin-worst')).toBeVisible();
  await shot(page, 'price-forms-cost-panel-warning');
  expect(await axeProblems(page)).toEqual([]);
});

test('a workflow app cannot be cost plus and needs a most per call priced per token, saying why', async ({ page }) => {
  await signUp(page);
  await page.goto('/applications/create?type=workflow');
  await expect(page.getByLabel('Cost plus')).toBeDisabled();
  await expect(page.getByTestId('cost-plus-reason')).toContainText("a Dify workflow's model is billed by Dify");
  await page.getByLabel('Per token').check();
  await page.getByLabel('Name').fill('Flow');
  await page.getByLabel('Provider App ID').fill('app-1');
  await page.getByLabel('Provider API Key').fill('key-1');
  await page.getByLabel('Input per million tokens (USD)').fill('1');
  await page.getByLabel('Output per million tokens (USD)').fill('2');
  await page.getByRole('button', { name: 'Create Application' }).click();
  await expect(page.getByText("Required for a workflow priced per token: Dify reports a run's tokens only after it runs")).toBeVisible();
  await expect(page.getByText('Enter the most one call may be charged.')).toBeVisible();
  await expect(page).toHaveURL(/\/applications\/create\?type=workflow$/);
  await shot(page, 'price-forms-workflow');
});
