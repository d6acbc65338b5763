// Demo answers are free and said to be demos: an app on a model whose provider is not configured
// (Anthropic here; the OpenAI names are served by the model fake start-server.mjs runs) shows the
// creator a notice on its page and in the builder before publishing, and a caller who calls it
// pays nothing and reads in the answer's metadata that it was a demo.
import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { accessTokenOf, signUp } from './support.ts';

test('an app answered by the demo model says so before publishing, and its calls are never charged', async ({ page, browser, request }) => {
  // Two sign-ups and the builder: generous under load.
  test.setTimeout(180_000);
  await signUp(page);
  const owner = await accessTokenOf(page);
  const headers = { authorization: `Bearer ${owner}` };
  const name = `Demo Haiku ${randomBytes(3).toString('hex')}`;
  const created = await request.post('/api/app/', { headers, data: { name, type: 'prompt', visibility: 'public', price_cents: 25 } });
  expect(created.status()).toBe(201);
  const { slug } = (await created.json()) as { slug: string };
  expect((await request.patch(`/api/app/${slug}/prompt/`, { headers, data: { model: 'claude-3-haiku' } })).status()).toBe(200);

  // The app page, still a draft: the notice says it is the demo model and how to configure a provider.
  await page.goto(`/applications/${slug}`);
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
  const notice = page.getByRole('region', { name: 'Demo model' });
  await expect(notice).toContainText('This app answers from the demo model');
  await expect(notice).toContainText('ANTHROPIC_API_KEY');
  await expect(page.getByTestId('app-badges')).toContainText('draft');
  await page.screenshot({ path: test.info().outputPath('app-page-demo-notice.png'), fullPage: true });

  // The builder says the same as soon as such a model is chosen, and nothing for a configured one.
  await page.goto('/prompt-builder');
  await expect(page.getByRole('heading', { name: 'Create New Prompt', level: 1 })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Demo model' })).toHaveCount(0);
  await page.getByRole('tab', { name: 'Model Settings' }).click();
  await page.getByLabel('Model', { exact: true }).selectOption('claude-3-haiku');
  await expect(page.getByRole('region', { name: 'Demo model' })).toContainText('never charged');
  await page.screenshot({ path: test.info().outputPath('builder-demo-notice.png'), fullPage: true });

  // Published, and called by someone else: free, and the answer says it is a demo.
  expect((await request.patch(`/api/app/${slug}/update_status/`, { headers, data: { status: 'live' } })).status()).toBe(200);
  const callerContext = await browser.newContext();
  try {
    const callerPage = await callerContext.newPage();
    await signUp(callerPage);
    const caller = { authorization: `Bearer ${await accessTokenOf(callerPage)}` };
    const response = await request.post(`/api/app/${slug}/completion-messages`, {
      headers: caller,
      data: { inputs: { query: 'owls' }, response_mode: 'blocking' },
    });
    expect(response.status(), await response.text()).toBe(200);
    const answer = (await response.json()) as { answer: string; metadata: { demo?: boolean; demo_notice?: string } };
    expect(answer.answer).toContain('demo answer');
    expect(answer.metadata.demo).toBe(true);
    expect(answer.metadata.demo_notice).toContain('not charged');
    const balance = (await (await request.get('/api/billing/balance/', { headers: caller })).json()) as { credits_cents: number };
    expect(balance.credits_cents).toBe(500);
  } finally {
    await callerContext.close();
  }
  const earnings = (await (await request.get('/api/billing/balance/', { headers })).json()) as { earnings_cents: number };
  expect(earnings.earnings_cents).toBe(0);
});
