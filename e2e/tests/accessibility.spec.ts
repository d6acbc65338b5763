// Every screen, signed out and signed in, at desktop and phone widths: axe-core finds no serious or
// critical violation and no heading-order problem, and every route has a title of its own. On a
// phone, the dashboard's Actions stay on screen.
import { randomBytes } from 'node:crypto';
import { AxeBuilder } from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { accessTokenOf, signUp } from './support.ts';

// Heading order is "moderate" for axe; the issue asks for it too.
const failing = (impact: string | null | undefined, id: string) => impact === 'serious' || impact === 'critical' || id === 'heading-order';

/** Waits for the screen to settle (a heading, no spinner), then runs axe; answers one line per problem. */
async function audit(page: Page, screen: string): Promise<string[]> {
  await expect(page.locator('h1').first()).toBeVisible();
  await expect(page.getByText(/^(Loading|Checking authentication).*\.\.\.$/).filter({ visible: true })).toHaveCount(0);
  if (process.env.SCREENSHOT_DIR) {
    const width = page.viewportSize()?.width ?? 0;
    await page.screenshot({ path: `${process.env.SCREENSHOT_DIR}/${screen.replace(/[^a-z0-9]+/gi, '-')}-${width}.png`, fullPage: true });
  }
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((violation) => failing(violation.impact, violation.id))
    .map(
      (violation) => `${screen}: ${violation.id} (${violation.impact}) ${violation.help} — ${violation.nodes.map((node) => node.target.join(' ')).join(' | ')}`,
    );
}

interface Screen {
  name: string;
  path: string;
  /** Tabs to open one after the other, each audited. */
  tabs?: string[];
  /** Steps before the audit (e.g. open the provider's sign-up form). */
  before?: (page: Page) => Promise<void>;
}

async function auditScreens(page: Page, screens: Screen[]): Promise<string[]> {
  const problems: string[] = [];
  for (const screen of screens) {
    await page.goto(screen.path);
    await screen.before?.(page);
    problems.push(...(await audit(page, screen.name)));
    for (const tab of screen.tabs ?? []) {
      await page.getByRole('tab', { name: tab, exact: true }).click();
      // Open what the tab folds away (the version history's diffs), so it is audited too.
      await expect(page.getByText(/^Loading.*\.\.\.$/).filter({ visible: true })).toHaveCount(0);
      for (const summary of await page.locator('[role="tabpanel"]:not([hidden]) summary').all()) await summary.click();
      problems.push(...(await audit(page, `${screen.name} / ${tab}`)));
    }
  }
  return problems;
}

const signedOutScreens: Screen[] = [
  { name: 'landing', path: '/' },
  { name: 'sign-in', path: '/login' },
  { name: 'sign-up', path: '/register' },
  { name: 'terms', path: '/terms' },
  { name: 'privacy', path: '/privacy' },
  { name: 'console signed out', path: '/api-test' },
  { name: 'explore signed out', path: '/explore' },
  { name: 'not found', path: '/no-such-page' },
  {
    name: 'provider sign-up form',
    path: '/register',
    before: async (page) => {
      await page.getByRole('button', { name: 'Create Account' }).click();
      await expect(page.getByRole('button', { name: 'Create account' })).toBeVisible();
    },
  },
  {
    name: 'provider sign-in form',
    path: '/login',
    before: async (page) => {
      await page.getByRole('button', { name: /^Sign in/ }).click();
      await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
    },
  },
];

async function createApps(page: Page) {
  const token = await accessTokenOf(page);
  const id = randomBytes(3).toString('hex');
  const post = async (body: object) => {
    const response = await page.request.post('/api/app/', { headers: { authorization: `Bearer ${token}` }, data: body });
    expect(response.status()).toBe(201);
    return ((await response.json()) as { slug: string }).slug;
  };
  const prompt = await post({ name: `Axe Prompt ${id}`, type: 'prompt', description: 'Audited by axe' });
  // A second version, so the version history has a diff to show.
  const patched = await page.request.patch(`/api/app/${prompt}/prompt/`, {
    headers: { authorization: `Bearer ${token}` },
    data: { prompt_template: 'Answer briefly:\n{{query}}', changelog: 'Updated via UI' },
  });
  expect(patched.status()).toBe(200);
  // Live (the app page's yellow "Set as Draft" button then enabled, and audited) and public (listed in Explore).
  const live = await page.request.patch(`/api/app/${prompt}/`, {
    headers: { authorization: `Bearer ${token}` },
    data: { status: 'live', visibility: 'public' },
  });
  expect(live.status()).toBe(200);
  const workflow = await post({ name: `Axe Flow ${id}`, type: 'workflow', provider_config: { app_id: 'axe-app', api_key: 'app-axe-key' } });
  return { prompt, workflow };
}

function signedInScreens({ prompt, workflow }: { prompt: string; workflow: string }): Screen[] {
  return [
    { name: 'dashboard', path: '/dashboard' },
    { name: 'applications', path: '/applications' },
    { name: 'create', path: '/applications/create' },
    { name: 'create workflow', path: '/applications/create?type=workflow' },
    { name: 'builder', path: '/prompt-builder', tabs: ['Input/Output Schema', 'Model Settings', 'Preview & Test'] },
    { name: 'builder edit', path: `/applications/${prompt}/edit` },
    { name: 'builder edit missing', path: '/applications/no-such-app/edit' },
    { name: 'app detail', path: `/applications/${prompt}` },
    { name: 'prompt list', path: '/prompts' },
    { name: 'prompt detail', path: `/prompts/${prompt}`, tabs: ['Prompt Config', 'Version History'] },
    { name: 'workflow list', path: '/workflows' },
    { name: 'workflow detail', path: `/workflows/${workflow}`, tabs: ['Provider Config', 'Version History'] },
    { name: 'analytics', path: '/analytics' },
    { name: 'app analytics', path: `/applications/${prompt}/analytics` },
    { name: 'profile and keys', path: '/profile' },
    { name: 'money', path: '/money' },
    { name: 'billing', path: `/applications/${prompt}/billing` },
    { name: 'console', path: '/api-test' },
    { name: 'explore', path: '/explore' },
    { name: 'explore app', path: `/explore/${prompt}` },
  ];
}

test('axe: the signed-out screens and the provider forms', async ({ page }) => {
  test.setTimeout(240_000);
  expect(await auditScreens(page, signedOutScreens)).toEqual([]);
});

test('axe: the signed-in screens, first half', async ({ page }) => {
  test.setTimeout(300_000);
  await signUp(page);
  const screens = signedInScreens(await createApps(page));
  expect(await auditScreens(page, screens.slice(0, 8))).toEqual([]);
});

test('axe: the signed-in screens, second half', async ({ page }) => {
  test.setTimeout(300_000);
  await signUp(page);
  const screens = signedInScreens(await createApps(page));
  expect(await auditScreens(page, screens.slice(8))).toEqual([]);
});

test('every route has a title of its own', async ({ page }) => {
  test.setTimeout(240_000);
  const titles = new Map<string, string>();
  const record = async (path: string) => {
    await page.goto(path);
    await expect(page.locator('h1').first()).toBeVisible();
    await expect(page).not.toHaveTitle('Tollbooth');
    titles.set(path, await page.title());
  };
  for (const screen of signedOutScreens.filter((screen) => !screen.before)) await record(screen.path);
  await signUp(page);
  for (const screen of signedInScreens(await createApps(page))) await record(screen.path);
  const byTitle = new Map<string, string[]>();
  for (const [path, title] of titles) byTitle.set(title, [...(byTitle.get(title) ?? []), path]);
  // Two paths share a title only when they are the same screen: the create form's two types.
  const shared = [...byTitle].filter(([, paths]) => paths.length > 1).map(([title, paths]) => `${title}: ${paths.join(', ')}`);
  expect(shared).toEqual(['Create Application · Tollbooth: /applications/create, /applications/create?type=workflow']);
});

test.describe('on a 390 px phone', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('the dashboard keeps every action on screen, and the screens pass axe', async ({ page }) => {
    test.setTimeout(180_000);
    await signUp(page);
    const { prompt } = await createApps(page);
    await page.goto('/dashboard');
    const row = page.getByTestId(`app-row-${prompt}`);
    await expect(row).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    for (const action of [
      row.getByRole('link', { name: 'Manage' }),
      row.getByRole('button', { name: /Download/ }),
      row.getByRole('link', { name: 'Analytics' }),
    ]) {
      // Reachable by scrolling down, never sideways.
      await action.scrollIntoViewIfNeeded();
      await expect(action).toBeInViewport();
      const box = await action.boundingBox();
      if (!box) throw new Error('the action has no box');
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    const problems = await auditScreens(page, [
      { name: 'dashboard', path: '/dashboard' },
      { name: 'builder', path: '/prompt-builder', tabs: ['Preview & Test'] },
      { name: 'prompt detail', path: `/prompts/${prompt}`, tabs: ['Version History'] },
      { name: 'analytics', path: '/analytics' },
    ]);
    expect(problems).toEqual([]);
  });
});
