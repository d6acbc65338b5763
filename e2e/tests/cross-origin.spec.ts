// A web page on another origin calls a paid app with an API key, as a caller's own site would:
// the page is served by a second HTTP server on another port, and Chromium enforces CORS on its
// fetches. The app wraps the Dify fake (a real provider, so its calls are charged).
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { baseURL, difyFakeUrl } from '../playwright.config.ts';
import { accessTokenOf, signUp } from './support.ts';

const PRICE = 30;

/** The caller's page: buttons that call Tollbooth with fetch and show what came back. */
const CALLER_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>A caller's site</title></head>
<body>
  <h1>A caller's site</h1>
  <button id="openai-blocking">OpenAI blocking</button>
  <button id="openai-streaming">OpenAI streaming</button>
  <button id="dify-blocking">Dify blocking</button>
  <button id="dify-streaming">Dify streaming</button>
  <button id="management">Management API</button>
  <pre id="result"></pre>
  <script>
    const settings = new URLSearchParams(location.hash.slice(1));
    const api = settings.get('api');
    const headers = { Authorization: 'Bearer ' + settings.get('key'), 'Content-Type': 'application/json', 'Idempotency-Key': crypto.randomUUID() };
    const show = (value) => { document.getElementById('result').textContent = JSON.stringify(value); };
    const post = (path, body) => fetch(api + path, { method: 'POST', headers: { ...headers, 'Idempotency-Key': crypto.randomUUID() }, body: JSON.stringify(body) });
    /** Reads a Server-Sent Events body into its data payloads. */
    async function events(response) {
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let text = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      return text.split('\\n\\n').filter((frame) => frame.startsWith('data: ')).map((frame) => frame.slice(6));
    }
    const run = (action) => async () => {
      show({ pending: true });
      try { show(await action()); } catch (error) { show({ failed: String(error) }); }
    };
    const slug = settings.get('slug');
    const messages = (content) => ({ model: slug, messages: [{ role: 'user', content }] });
    document.getElementById('openai-blocking').onclick = run(async () => {
      const response = await post('/v1/chat/completions', messages('from another origin'));
      const body = await response.json();
      return { status: response.status, answer: body.choices[0].message.content, usage: body.usage };
    });
    document.getElementById('openai-streaming').onclick = run(async () => {
      const response = await post('/v1/chat/completions', { ...messages('streamed across origins'), stream: true, stream_options: { include_usage: true } });
      const data = await events(response);
      const chunks = data.filter((item) => item !== '[DONE]').map((item) => JSON.parse(item));
      return {
        status: response.status,
        type: response.headers.get('content-type'),
        answer: chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join(''),
        usage: chunks.at(-1).usage,
        done: data.at(-1) === '[DONE]',
      };
    });
    document.getElementById('dify-blocking').onclick = run(async () => {
      const response = await post('/api/app/' + slug + '/chat-messages', { inputs: {}, query: 'Dify from afar', response_mode: 'blocking' });
      const body = await response.json();
      return { status: response.status, answer: body.answer, limit: response.headers.get('RateLimit-Limit') };
    });
    document.getElementById('dify-streaming').onclick = run(async () => {
      const response = await post('/api/app/' + slug + '/chat-messages', { inputs: {}, query: 'Dify streamed', response_mode: 'streaming' });
      const events_ = (await events(response)).map((item) => JSON.parse(item));
      return {
        status: response.status,
        answer: events_.filter((event) => event.event === 'message').map((event) => event.answer).join(''),
        ended: events_.at(-1).event,
      };
    });
    document.getElementById('management').onclick = run(async () => {
      const response = await fetch(api + '/api/keys/', { headers: { Authorization: headers.Authorization } });
      return { status: response.status };
    });
  </script>
</body>
</html>`;

let site: Server;
let siteOrigin: string;

test.beforeAll(async () => {
  site = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(CALLER_PAGE);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteOrigin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
test.afterAll(async () => {
  await new Promise((resolve) => site?.close(resolve));
});

test('a page on another origin calls a paid app with an API key, blocking and streaming, and is charged for each call', async ({ page, browser }) => {
  // The creator publishes a Dify-backed app at 30 cents a call.
  await signUp(page);
  const creator = await accessTokenOf(page);
  const asCreator = { authorization: `Bearer ${creator}` };
  const id = randomBytes(3).toString('hex');
  const created = await page.request.post('/api/app/', {
    headers: asCreator,
    data: {
      name: `Cross Origin ${id}`,
      type: 'workflow',
      visibility: 'public',
      price_cents: PRICE,
      provider_config: { app_id: 'dify-e2e-app', api_key: 'app-e2e-dify-key', base_url: difyFakeUrl },
    },
  });
  expect(created.status()).toBe(201);
  const slug = (await created.json()).slug as string;
  expect((await page.request.patch(`/api/app/${slug}/workflow/`, { headers: asCreator, data: {} })).status()).toBe(200);
  expect((await page.request.patch(`/api/app/${slug}/update_status/`, { headers: asCreator, data: { status: 'live' } })).status()).toBe(200);

  // A caller with an API key, in a browser of their own.
  const context = await browser.newContext();
  const callerPage = await context.newPage();
  try {
    await signUp(callerPage);
    const caller = await accessTokenOf(callerPage);
    const asCaller = { authorization: `Bearer ${caller}` };
    const key = (await (await callerPage.request.post('/api/keys/', { headers: asCaller, data: { name: 'site key' } })).json()).key as string;
    const creditsBefore = (await (await callerPage.request.get('/api/billing/balance/', { headers: asCaller })).json()).credits_cents as number;

    // Their site, on another origin.
    await callerPage.goto(`${siteOrigin}/#${new URLSearchParams({ api: baseURL, key, slug })}`);
    await expect(callerPage.getByRole('heading', { name: "A caller's site" })).toBeVisible();
    expect(new URL(callerPage.url()).origin).not.toBe(new URL(baseURL).origin);
    const result = callerPage.locator('#result');
    const press = async (button: string) => {
      await callerPage.getByRole('button', { name: button }).click();
      await expect(result).not.toHaveText(/pending/);
      return JSON.parse((await result.textContent()) ?? '{}');
    };

    expect(await press('OpenAI blocking')).toEqual({
      status: 200,
      answer: 'Dify echo: from another origin',
      usage: { prompt_tokens: 12, completion_tokens: 6, total_tokens: 18, cost: PRICE / 100, cost_cents: PRICE },
    });
    expect(await press('OpenAI streaming')).toEqual({
      status: 200,
      type: 'text/event-stream; charset=utf-8',
      answer: 'Dify echo: streamed across origins',
      usage: { prompt_tokens: 12, completion_tokens: 6, total_tokens: 18, cost: PRICE / 100, cost_cents: PRICE },
      done: true,
    });
    // The exposed rate-limit headers are readable from the page.
    expect(await press('Dify blocking')).toEqual({ status: 200, answer: 'Dify echo: Dify from afar', limit: expect.stringMatching(/^\d+$/) });
    expect(await press('Dify streaming')).toEqual({ status: 200, answer: 'Dify echo: Dify streamed', ended: 'message_end' });

    // The management API is not open to other origins: the browser refuses to hand over the answer.
    expect((await press('Management API')).failed).toMatch(/TypeError/);

    // Four answered calls, each charged the price once.
    await expect
      .poll(async () => (await (await callerPage.request.get('/api/billing/balance/', { headers: asCaller })).json()).credits_cents)
      .toBe(creditsBefore - 4 * PRICE);
    await callerPage.screenshot({ path: 'test-results/cross-origin-caller-site.png' });
  } finally {
    await context.close();
  }
});
