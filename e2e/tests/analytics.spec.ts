import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect, type Page, test } from '@playwright/test';
import { signUp } from './support.ts';

/** The signed-in user's access token, as the web app keeps it (oidc-client-ts in localStorage). */
async function accessToken(page: Page): Promise<string> {
  const token = await page.evaluate(() => {
    for (let i = 0; i < window.localStorage.length; i++) {
      const key = window.localStorage.key(i);
      if (key?.startsWith('oidc.user:')) return (JSON.parse(window.localStorage.getItem(key) ?? '{}') as { access_token?: string }).access_token ?? null;
    }
    return null;
  });
  expect(token, 'an access token in localStorage').toBeTruthy();
  return token as string;
}

test('after calls through the gateway, both analytics screens show them', async ({ page }) => {
  await signUp(page);
  const token = await accessToken(page);
  const headers = { authorization: `Bearer ${token}` };
  const name = `Analytics ${randomBytes(3).toString('hex')}`;

  const created = await page.request.post('/api/app/', { headers, data: { name, type: 'prompt' } });
  expect(created.status()).toBe(201);
  const { slug } = (await created.json()) as { slug: string };

  // Three answered calls by two end users (the OpenAI model fake answers), one rejected for a
  // missing input (the caller's mistake, not the app's) and one answered call that names no user:
  // 5 invocations, 4 successful, none failed (100%), 1 rejected, 3 distinct users (a caller that
  // names no user counts as one user, though its account id is never shown).
  const call = (inputs: object, user?: string) =>
    page.request.post(`/api/app/${slug}/completion-messages`, { headers, data: { inputs, response_mode: 'blocking', ...(user ? { user } : {}) } });
  for (const user of ['reader-one', 'reader-two', 'reader-one']) {
    const response = await call({ query: 'hi' }, user);
    expect(response.status(), await response.text()).toBe(200);
  }
  expect((await call({}, 'reader-two')).status()).toBe(400);
  expect((await call({ query: 'hi' })).status()).toBe(200);

  // Global Analytics.
  await page.goto('/analytics');
  await expect(page.getByRole('heading', { name: 'Global Analytics', level: 1 })).toBeVisible();
  await expect(page.getByTestId('stat-Applications')).toContainText('1');
  await expect(page.getByTestId('stat-Total Invocations')).toContainText('5');
  await expect(page.getByTestId('stat-Active Users')).toContainText('3');
  await expect(page.getByTestId('stat-Success Rate')).toContainText('100.0%');
  for (const title of ['Invocations Over Time', 'Success vs Error Rate', 'Response Time Trend', 'Token Usage']) {
    await expect(page.getByRole('region', { name: title }).locator('.recharts-surface').first()).toBeVisible();
  }
  const row = page.getByTestId(`performance-row-${slug}`);
  await expect(row).toContainText(name);
  await expect(row).toContainText('prompt');
  await expect(row).toContainText('100.0%');
  await expect(row).toContainText(await page.evaluate(() => new Date().toLocaleDateString()));
  // The rejected call is shown apart, by type; the app itself never failed, so there are no Top Errors.
  const rejected = page.getByRole('region', { name: 'Rejected Calls' });
  await expect(rejected).toContainText('Invalid inputs (400)');
  await expect(rejected).toContainText('invalid_param');
  await expect(rejected.getByTestId('rejected-total')).toHaveText('1 rejected');
  await expect(page.getByRole('region', { name: 'Top Errors' })).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('global-analytics.png'), fullPage: true });

  // Switching the period loads it again.
  await expect(page.getByRole('button', { name: '30d', exact: true })).toHaveAttribute('aria-pressed', 'true');
  const sevenDays = page.waitForRequest((request) => request.url().includes('/api/analytics/dashboard/?days=7'));
  await page.getByRole('button', { name: '7d', exact: true }).click();
  await sevenDays;
  await expect(page.getByRole('button', { name: '7d', exact: true })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('stat-Total Invocations')).toContainText('5');

  // Per-application analytics, from the table.
  await row.getByRole('link', { name }).click();
  await expect(page).toHaveURL(new RegExp(`/applications/${slug}/analytics$`));
  await expect(page.getByRole('heading', { name: `${name} Analytics`, level: 1 })).toBeVisible();
  await expect(page.getByTestId('stat-Total Invocations')).toContainText('5');
  await expect(page.getByTestId('stat-Unique Users')).toContainText('3');
  await expect(page.getByTestId('stat-Success Rate')).toContainText('100.0%');
  await expect(page.getByTestId('stat-Avg Response Time')).toContainText(/^Avg Response Time\d+\.\d{2}s$/);
  for (const title of ['Usage Over Time', 'Performance Metrics', 'Response Time Trend', 'Revenue Trend']) {
    await expect(page.getByRole('region', { name: title }).locator('.recharts-surface').first()).toBeVisible();
  }

  const invocations = page.getByRole('region', { name: 'Recent Invocations' }).getByTestId('invocation-row');
  await expect(invocations).toHaveCount(5);
  // Newest first: the call without a user (Anonymous, never the caller's account id), the rejected
  // call with its error type, then the three answered ones.
  await expect(invocations.nth(0)).toContainText('Anonymous');
  await expect(invocations.nth(0)).toContainText('success');
  await expect(invocations.nth(1)).toContainText('reader-two');
  await expect(invocations.nth(1)).toContainText('rejected');
  await expect(invocations.nth(1)).toContainText('invalid_param');
  await expect(invocations.nth(2)).toContainText('reader-one');
  await expect(invocations.nth(2)).toContainText('success');
  await expect(invocations.nth(0).locator('td').first()).toHaveText(/^[0-9a-f]{8}\.\.\.$/);
  await expect(page.getByRole('region', { name: 'Rejected Calls' })).toContainText('Invalid inputs (400)');
  // The owner's own calls are free to them but not to the platform: their model cost came from the
  // owner's credits, and the creator sees it per call and over the period (issue 22).
  await expect(page.getByTestId('stat-Model Cost')).toContainText(/\$0\.\d*[1-9]/);
  await expect(page.getByTestId('stat-Margin')).toContainText('−$');
  await expect(invocations.nth(0)).toContainText('$0.00');
  await expect(invocations.nth(0).locator('td').nth(7)).toHaveText(/^\$0\.0\d+$/);
  await page.screenshot({ path: test.info().outputPath('app-analytics.png'), fullPage: true });
  if (process.env.SCREENSHOTS_DIR) await page.screenshot({ path: `${process.env.SCREENSHOTS_DIR}/app-analytics-model-cost.png`, fullPage: true });

  const usageSevenDays = page.waitForRequest((request) => request.url().includes(`/api/app/${slug}/analytics/usage/?days=7`));
  await page.getByRole('button', { name: '7d', exact: true }).click();
  await usageSevenDays;
  await expect(page.getByTestId('stat-Total Invocations')).toContainText('5');

  // CSV export downloads every call of the period shown (7 days here), with their outcome.
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export Invocations CSV' }).click();
  expect((await download).suggestedFilename()).toBe(`${slug}-invocations-7d.csv`);
  const csv = readFileSync((await (await download).path()) as string, 'utf8');
  expect(csv.split('\r\n')[0]).toBe(
    'id,created_at,end_user,status,outcome,error_type,response_time_seconds,input_tokens,output_tokens,price_cents,model_cost_dollars,charge_dollars',
  );
  expect(csv).toContain(',reader-two,error,rejected,invalid_param,');
});
