// Issue 61 in the browser: a creator raising the price of an app that others called sees, where they
// saved, when the new price applies and what the calls until then cost; Explore and the API console
// show how an OpenAI client fills every input of an app with three variables. Takes the screenshots
// of those screens when SCREENSHOTS_DIR is set.
import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { accessTokenOf, screenshotPath, signUp, signUpCreator } from './support.ts';

const shot = screenshotPath;

test('a deferred price increase says when and what; Explore and the console show the OpenAI example for three inputs', async ({ page, browser }) => {
  test.setTimeout(120_000);
  const creator = await signUpCreator(page);
  const name = `Essay Writer ${randomBytes(3).toString('hex')}`;
  const created = await page.request.post('/api/app/', { headers: creator, data: { name, type: 'prompt', visibility: 'public', price_cents: 1 } });
  expect(created.status()).toBe(201);
  const slug = (await created.json()).slug as string;
  const prompt = await page.request.patch(`/api/app/${slug}/prompt/`, {
    headers: creator,
    data: { prompt_template: 'Write about {{topic}} in a {{tone}} tone, in {{words}} words' },
  });
  expect(prompt.status()).toBe(200);
  expect((await page.request.patch(`/api/app/${slug}/update_status/`, { headers: creator, data: { status: 'live' } })).status()).toBe(200);

  // A caller calls it once, through the OpenAI endpoint with metadata for the other inputs.
  const context = await browser.newContext();
  const caller = await context.newPage();
  await signUp(caller);
  const callerAuth = { authorization: `Bearer ${await accessTokenOf(caller)}` };
  const key = (await (await caller.request.post('/api/keys/', { headers: callerAuth, data: { name: 'cli' } })).json()).key as string;
  const called = await caller.request.post('/v1/chat/completions', {
    headers: { authorization: `Bearer ${key}` },
    data: { model: slug, messages: [{ role: 'user', content: 'owls' }], metadata: { tone: 'dry', words: '50' } },
  });
  expect(called.status()).toBe(200);

  // Explore: the OpenAI client row says how the inputs are filled; the OpenAI SDK snippet uses metadata.
  await caller.goto(`/explore/${slug}`);
  await expect(caller.getByTestId('openai-inputs-rule')).toHaveText(
    'The last user message fills topic; tone, words go in metadata (text) or an "inputs" body field (any JSON).',
  );
  await caller.getByRole('tab', { name: 'OpenAI SDK' }).click();
  await expect(caller.getByTestId('snippet-openai_sdk')).toContainText("metadata: { tone: 'example tone', words: 'example words' }");
  await caller.getByTestId('openai-inputs-rule').scrollIntoViewIfNeeded();
  await caller.screenshot({ ...shot('explore-openai-inputs.png'), fullPage: true });
  // The console: a copyable example for this app.
  await caller.goto(`/api-test?app=${slug}`);
  await expect(caller.getByTestId('console-openai-example')).toContainText(`model: '${slug}'`);
  await caller.screenshot({ ...shot('console-openai-example.png'), fullPage: true });
  await context.close();

  // The creator raises the price: it waits for the notice period, and the page says so and what it costs.
  await page.goto(`/prompts/${slug}`);
  await page.getByLabel('Price per Call (USD)').fill('0.10');
  await page.getByRole('button', { name: 'Save Changes' }).click();
  const notice = page.getByTestId('price-notice');
  await expect(notice).toContainText('Your new price $0.10 applies on');
  await expect(notice).toContainText('1 call from others in the last 7 days');
  await page.screenshot({ ...shot('prompt-detail-price-notice.png'), fullPage: true });
});
