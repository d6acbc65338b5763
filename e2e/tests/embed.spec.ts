// The embed widget (issue 28): a site owner pastes the one-line snippet, filled in with their
// publishable key, into a page served from a second origin; visitors chat with a paid app through
// the widget and the site owner is charged once per answer. The same snippet on a third origin
// draws nothing but a quiet note (the snippet asks first; the console says why) and charges nothing. Also takes the widget's screenshots
// (both themes, a chat and a form app) when SCREENSHOTS_DIR is set.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect, type Frame, type Page, test } from '@playwright/test';
import { baseURL } from '../playwright.config.ts';
import { accessTokenOf, signUp } from './support.ts';

const PRICE = 25;

/** A site's page: whatever HTML the test puts at a path. */
function startSite(pages: Map<string, string>): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    const html = pages.get(request.url ?? '/');
    response.writeHead(html ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    response.end(html ?? 'not found');
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })),
  );
}

const sitePage = (title: string, snippet: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body style="font-family:sans-serif;margin:40px"><h1>${title}</h1><p>Our shop sells owl figurines.</p>${snippet}</body></html>`;

const pages = new Map<string, string>();
const thirdPages = new Map<string, string>();
let site: { server: Server; origin: string };
let third: { server: Server; origin: string };

test.beforeAll(async () => {
  [site, third] = await Promise.all([startSite(pages), startSite(thirdPages)]);
});
test.afterAll(async () => {
  await Promise.all([site, third].map(({ server }) => new Promise((resolve) => server?.close(resolve))));
});

async function publishApp(page: Page, token: string, name: string, mode: 'chat' | 'completion', visibility = 'embed') {
  const headers = { authorization: `Bearer ${token}` };
  const created = await page.request.post('/api/app/', {
    headers,
    data: { name, type: 'prompt', visibility, price_cents: PRICE, interaction_mode: mode },
  });
  expect(created.status()).toBe(201);
  const slug = (await created.json()).slug as string;
  expect((await page.request.patch(`/api/app/${slug}/update_status/`, { headers, data: { status: 'live' } })).status()).toBe(200);
  return slug;
}

const widgetFrame = (page: Page): Promise<Frame> =>
  expect
    .poll(() => page.frames().find((frame) => frame.url().startsWith(`${baseURL}/embed/`)) ?? null)
    .not.toBeNull()
    .then(() => page.frames().find((frame) => frame.url().startsWith(`${baseURL}/embed/`)) as Frame);

test('a snippet pasted on a second origin chats with a paid app, charged once per answer; on a third origin it does not render and charges nothing', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  // The creator publishes a public chat app at 25 cents an answer (answered by the OpenAI fake, so charged).
  await signUp(page);
  const creator = await accessTokenOf(page);
  const id = randomBytes(3).toString('hex');
  const slug = await publishApp(page, creator, `Owl Helper ${id}`, 'chat', 'public');

  // The site owner, in a browser of their own, makes a publishable key for their site and copies the snippet.
  const context = await browser.newContext();
  const owner = await context.newPage();
  try {
    await signUp(owner);
    // On the profile page: a publishable key for their site and this app, with its caps.
    await owner.goto('/profile');
    const form = owner.getByRole('form', { name: 'Create a publishable key' });
    await form.getByLabel('Widget Name').fill('Shop widget');
    await form.getByLabel('Allowed Websites').fill(site.origin);
    await form.getByLabel('Apps (slugs)').fill(slug);
    await form.getByLabel('Daily Spend Cap (cents)').fill('200');
    await form.getByLabel('Monthly Spend Cap (cents)').fill('400');
    await form.getByRole('button', { name: 'Create Publishable Key' }).click();
    const row = owner.locator('[data-testid^="publishable-key-row-"]', { hasText: 'Shop widget' });
    await expect(row).toContainText(site.origin);
    await expect(row).toContainText('$0.00 of $2.00');
    const key = (await row.locator('td').nth(1).innerText()).trim();
    if (process.env.SCREENSHOTS_DIR) await owner.screenshot({ path: path.join(process.env.SCREENSHOTS_DIR, 'embed-profile-keys.png'), fullPage: true });
    expect(key).toMatch(/^pk_[0-9A-Za-z]{43}$/);
    // On Explore, the app's page offers the snippet filled in with that key.
    await owner.goto(`/explore/${slug}`);
    const snippet = (await owner.getByTestId('embed-snippet').innerText()).trim();
    expect(snippet).toBe(`<script src="${baseURL}/embed/loader.js" data-app="${slug}" data-key="${key}" async></script>`);
    if (process.env.SCREENSHOTS_DIR) {
      await owner.getByRole('heading', { name: 'Embed on your website' }).scrollIntoViewIfNeeded();
      await owner.screenshot({ path: path.join(process.env.SCREENSHOTS_DIR, 'embed-explore-snippet.png') });
    }
    const token = await accessTokenOf(owner);
    const asOwner = { authorization: `Bearer ${token}` };
    const balance = async () => (await (await owner.request.get('/api/billing/balance/', { headers: asOwner })).json()).credits_cents as number;
    const before = await balance();

    // A visitor on the site (second origin) opens the chat bubble and asks twice.
    pages.set('/', sitePage('Owl Shop', snippet));
    const visitor = await browser.newPage();
    await visitor.goto(`${site.origin}/`);
    await visitor.getByRole('button', { name: 'Open chat' }).click();
    const frame = await widgetFrame(visitor);
    await expect(frame.getByRole('heading', { name: `Owl Helper ${id}` })).toBeVisible();
    await expect(frame.getByText('$0.25 per answer')).toBeVisible();
    for (const [index, question] of ['Do you ship owls to Norway?', 'And to Peru?'].entries()) {
      await frame.getByRole('textbox', { name: 'Message' }).fill(question);
      await frame.getByRole('button', { name: 'Send' }).click();
      await expect(frame.locator('.bubble.bot')).toHaveCount(index + 1);
      await expect(frame.locator('.bubble.bot').nth(index)).toHaveText(/\S/);
      await expect(frame.locator('.bubble.bot').nth(index)).not.toHaveAttribute('aria-busy');
    }
    await expect(frame.getByRole('alert')).toHaveCount(0);
    if (process.env.SCREENSHOTS_DIR) await visitor.screenshot({ path: path.join(process.env.SCREENSHOTS_DIR, 'embed-bubble-light.png') });
    await expect.poll(balance).toBe(before - 2 * PRICE);
    // The visitor's anonymous id (the frame's own, never the host page's) is both calls' end user: one user in the creator's
    // analytics, listed as Anonymous, never as the raw id (issue 61).
    const asCreator = { headers: { authorization: `Bearer ${creator}` } };
    const recent = (await (await page.request.get(`/api/app/${slug}/analytics/invocations/`, asCreator)).json()) as {
      end_user: string | null;
      status: string;
    }[];
    const endUsers = recent.filter((call) => call.status === 'success').map((call) => call.end_user);
    expect(endUsers).toEqual([null, null]);
    expect((await (await page.request.get(`/api/app/${slug}/analytics/usage/?days=7`, asCreator)).json()).total_users).toBe(1);
    expect(await visitor.evaluate(() => localStorage.getItem('tollbooth-visitor'))).toBeNull();
    await visitor.close();

    // The same snippet on a third origin: the snippet asks first and draws nothing (issue 61): no bubble, no
    // frame onto the browser's broken-frame icon; a quiet note for visitors, the reason in the console for the owner.
    thirdPages.set('/', sitePage('Copycat Shop', snippet.replace('async>', 'data-mode="inline" async>')));
    const copycat = await browser.newPage();
    const consoleErrors: string[] = [];
    copycat.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    await copycat.goto(`${third.origin}/`);
    await expect(copycat.getByRole('heading', { name: 'Copycat Shop' })).toBeVisible();
    await expect(copycat.getByRole('note')).toHaveText('This site is not allowed for this key');
    expect(copycat.frames()).toHaveLength(1);
    await expect(copycat.locator('iframe')).toHaveCount(0);
    await expect
      .poll(() => consoleErrors.join('\n'))
      .toContain(`This site is not allowed for this key: ${third.origin} is not one of its websites (${site.origin})`);
    if (process.env.SCREENSHOTS_DIR) await copycat.screenshot({ path: path.join(process.env.SCREENSHOTS_DIR, 'embed-origin-refused.png') });

    // The owner's own near miss: the same site as http://localhost:port. The bubble is not drawn and the console says why.
    const nearMiss = await browser.newPage();
    const nearMissErrors: string[] = [];
    nearMiss.on('console', (message) => {
      if (message.type() === 'error') nearMissErrors.push(message.text());
    });
    await nearMiss.goto(`${site.origin.replace('127.0.0.1', 'localhost')}/`);
    await expect(nearMiss.getByRole('note')).toHaveText('This site is not allowed for this key');
    await expect(nearMiss.getByRole('button', { name: 'Open chat' })).toHaveCount(0);
    await expect.poll(() => nearMissErrors.join('\n')).toContain('localhost and 127.0.0.1 are different origins');
    if (process.env.SCREENSHOTS_DIR) await nearMiss.screenshot({ path: path.join(process.env.SCREENSHOTS_DIR, 'embed-origin-refused-bubble.png') });
    await nearMiss.close();

    // Framed anyway by hand (a page that skips the snippet), the browser still refuses: frame-ancestors.
    const refusals: number[] = [];
    copycat.on('response', (response) => {
      if (response.url().startsWith(`${baseURL}/embed/${slug}?`)) refusals.push(response.status());
    });
    await copycat.evaluate(
      ({ src }) => {
        const frame = document.createElement('iframe');
        frame.src = src;
        document.body.append(frame);
      },
      { src: `${baseURL}/embed/${slug}?key=${key}` },
    );
    await expect.poll(() => refusals).toEqual([403]);
    const blocked = copycat.frames().find((frame) => frame !== copycat.mainFrame());
    expect(blocked).toBeDefined();
    // Chromium enforces frame-ancestors: its own error page stands in the frame, nothing of the widget's.
    await expect(blocked!.locator('body')).toContainText('refused to connect');
    await expect(blocked!.locator('textarea, form, [data-embed-refused], #tollbooth-embed')).toHaveCount(0);
    // Its script cannot call with the key either (no CORS on the embed API, and another Origin).
    const direct = await copycat.evaluate(
      async ({ api, slug: appSlug, key: pk }) => {
        try {
          const response = await fetch(`${api}/api/embed/${appSlug}/chat-messages`, {
            method: 'POST',
            headers: { authorization: `Bearer ${pk}`, 'content-type': 'application/json' },
            body: JSON.stringify({ inputs: {}, query: 'free lunch?', user: 'copycat-visitor' }),
          });
          return `status ${response.status}`;
        } catch (error) {
          return `blocked: ${(error as Error).name}`;
        }
      },
      { api: baseURL, slug, key },
    );
    expect(direct).toMatch(/^blocked|status 40[13]/);
    await copycat.close();
    expect(await balance()).toBe(before - 2 * PRICE);
  } finally {
    await context.close();
  }
});

test('the widget in light and dark themes, in a chat app and a form app (screenshots)', async ({ page, browser }) => {
  test.setTimeout(120_000);
  await signUp(page);
  const creator = await accessTokenOf(page);
  const id = randomBytes(3).toString('hex');
  const chatSlug = await publishApp(page, creator, `Owl Helper ${id}`, 'chat');
  const formSlug = await publishApp(page, creator, `Owl Namer ${id}`, 'completion');
  const asCreator = { authorization: `Bearer ${creator}` };
  // The creator embeds their own apps on their own site: their own calls are free.
  const key = (
    await (
      await page.request.post('/api/keys/', {
        headers: asCreator,
        data: {
          name: 'My site',
          kind: 'publishable',
          allowed_origins: [site.origin],
          app_slugs: [chatSlug, formSlug],
          daily_spend_limit_cents: 100,
          monthly_spend_limit_cents: 100,
        },
      })
    ).json()
  ).key as string;
  const screenshots = process.env.SCREENSHOTS_DIR;
  for (const theme of ['light', 'dark'] as const) {
    const path_ = `/${theme}`;
    pages.set(
      path_,
      sitePage(
        `Owl Shop (${theme})`,
        `<div style="display:grid;grid-template-columns:1fr 1fr;gap:24px"><div><script src="${baseURL}/embed/loader.js" data-app="${chatSlug}" data-key="${key}" data-mode="inline" data-theme="${theme}" data-height="420"></script></div><div><script src="${baseURL}/embed/loader.js" data-app="${formSlug}" data-key="${key}" data-mode="inline" data-theme="${theme}" data-height="420"></script></div></div>`,
      ),
    );
    const visitor = await browser.newPage({ viewport: { width: 1100, height: 640 } });
    await visitor.goto(`${site.origin}${path_}`);
    const frames = () => visitor.frames().filter((frame) => frame.url().startsWith(`${baseURL}/embed/`));
    await expect.poll(() => frames().length).toBe(2);
    const chat = frames().find((frame) => frame.url().includes(chatSlug))!;
    const form = frames().find((frame) => frame.url().includes(formSlug))!;
    await chat.getByRole('textbox', { name: 'Message' }).fill('Which owl is the smallest?');
    await chat.getByRole('button', { name: 'Send' }).click();
    await expect(chat.locator('.bubble.bot')).toHaveText(/\S/);
    await form.getByRole('textbox').first().fill('a tiny elf owl');
    await form.getByRole('button', { name: 'Run' }).click();
    await expect(form.locator('.output')).toHaveText(/\S/);
    await expect(form.getByRole('heading', { name: `Owl Namer ${id}` })).toBeVisible();
    expect(await chat.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
    if (screenshots) await visitor.screenshot({ path: path.join(screenshots, `embed-widget-${theme}.png`) });
    await visitor.close();
  }
});
