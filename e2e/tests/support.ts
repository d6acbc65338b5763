import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { type BrowserContext, expect, type Page, test } from '@playwright/test';

export interface TestAccount {
  email: string;
  password: string;
  displayName: string;
}

export function newAccount(prefix = 'user'): TestAccount {
  const id = randomBytes(4).toString('hex');
  return { email: `${prefix}-${id}@example.com`, password: `pw-${id}-secret`, displayName: `${prefix} ${id}` };
}

/** Fills the embedded provider's sign-up form (reached from the Register page's button). */
export async function fillSignUpForm(page: Page, account: TestAccount) {
  await expect(page.getByRole('button', { name: 'Create account' })).toBeVisible();
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByLabel('Display name').fill(account.displayName);
  await page.getByRole('button', { name: 'Create account' }).click();
}

/** Fills the embedded provider's sign-in form. */
export async function fillSignInForm(page: Page, account: Pick<TestAccount, 'email' | 'password'>) {
  await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** Signs up a new account from the landing page and waits for the dashboard. */
export async function signUp(page: Page, account = newAccount()) {
  await page.goto('/register');
  await page.getByRole('button', { name: 'Create Account' }).click();
  await fillSignUpForm(page, account);
  await expect(page).toHaveURL(/\/dashboard$/);
  return account;
}

export async function openUserMenu(page: Page) {
  // A click that lands while the page is still settling (the dashboard re-renders after sign-up) can
  // leave the menu closed: click again until it is open.
  const button = page.getByTestId('user-menu-button');
  await expect(async () => {
    if ((await button.getAttribute('aria-expanded')) !== 'true') await button.click();
    await expect(page.getByRole('menu')).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
}

/** Opens the user menu and chooses an item; if a re-render closed the menu in between, opens it again. */
export async function chooseFromUserMenu(page: Page, item: string) {
  await expect(async () => {
    await openUserMenu(page);
    await page.getByRole('menuitem', { name: item }).click({ timeout: 2_000 });
  }).toPass({ timeout: 45_000 });
}

export async function signOut(page: Page) {
  await chooseFromUserMenu(page, 'Sign out');
  await expect(page.getByRole('link', { name: 'Sign in' }).first()).toBeVisible();
}

/** The signed-in user's access token, as the web app keeps it (oidc-client-ts in localStorage), for API calls from tests. */
export async function accessTokenOf(page: Page): Promise<string> {
  const token = await page.evaluate(() => {
    for (let index = 0; index < localStorage.length; index++) {
      const key = localStorage.key(index);
      if (key?.startsWith('oidc.user:')) return (JSON.parse(localStorage.getItem(key) ?? '{}') as { access_token?: string }).access_token ?? null;
    }
    return null;
  });
  expect(token, 'signed in').toBeTruthy();
  return token!;
}

/**
 * Collects Content-Security-Policy violations in every page of a browser context: the document's
 * securitypolicyviolation events (reported to the console by an init script) and Chromium's own
 * "Refused to …" console errors. Returns the live list.
 */
export async function watchCspViolations(context: BrowserContext): Promise<string[]> {
  const violations: string[] = [];
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || 'inline'} (${event.sourceFile}:${event.lineNumber})`);
    });
  });
  const watch = (page: Page) =>
    page.on('console', (message) => {
      const text = message.text();
      if (text.startsWith('CSP violation:') || /Content Security Policy/i.test(text)) violations.push(`${page.url()}: ${text}`);
    });
  for (const page of context.pages()) watch(page);
  context.on('page', watch);
  return violations;
}

/**
 * Starts a Tollbooth of a test's own (the compiled server, `node dist/main.js` in server/ as `npm start`
 * runs it, which the suite's own server start built; with `env`) and resolves once
 * `${origin}/api/health` answers. A first start on a fresh DATA_DIR creates its embedded database
 * (17 s on an idle 2-core machine, over 40 s beside two browser workers), so the wait is bounded by
 * time, not attempts; a server that exits meanwhile fails at once with its exit code.
 */
export async function startTollbooth(origin: string, env: NodeJS.ProcessEnv, timeoutMs = 150_000): Promise<ChildProcess> {
  const server = spawn(process.execPath, ['--enable-source-maps', 'dist/main.js'], {
    cwd: path.resolve(import.meta.dirname, '../../server'),
    env,
    stdio: 'inherit',
  });
  let exited: string | null = null;
  server.once('exit', (code, signal) => {
    exited = signal ?? `code ${code}`;
  });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited !== null) throw new Error(`the server on ${origin} exited before it answered (${exited})`);
    const ok = await fetch(`${origin}/api/health`, { signal: AbortSignal.timeout(5_000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return server;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  server.kill('SIGTERM');
  throw new Error(`the server on ${origin} did not answer /api/health within ${timeoutMs / 1000} s`);
}

const serverDir = path.resolve(import.meta.dirname, '../../server');

export const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

/** Earnings available at once and no sweep (the hold and the sweep are covered by the server tests), generous credits and sign-ups, calls settled one by one. */
export const EARNINGS_AT_ONCE_ENV = {
  SIGNUP_CREDITS_CENTS: '100000',
  SIGNUP_LIMIT_PER_ADDRESS_PER_HOUR: '10000',
  SETTLEMENT_WINDOW_CALLS: '0',
  PAYOUT_HOLD_DAYS: '0',
  PAYOUT_SWEEP_SECONDS: '0',
};

export interface StripeTollbooth {
  /** The server's origin (localhost, a port of its own). */
  base: string;
  /** The Stripe fake: its API's URL and keys. */
  stripe: { url: string; secretKey: string; publishableKey: string; webhookSecret: string };
  /** Stops the server and the fakes, and removes the data directory. */
  stop(): Promise<void>;
}

/**
 * A second Tollbooth of a test's own (its own process, on a fresh DATA_DIR, beside the suite's) against
 * the Stripe fake (its own process, webhooks delivered to this server). With `modelKey`, an
 * OpenAI-compatible model fake asking for that key answers the OpenAI model names, so calls are charged
 * and creators earn. `env` adds settings.
 */
/**
 * A spec file's own Stripe Tollbooth (startStripeTollbooth): its tests run one after another on one
 * worker, the server started before them (handed to `started`) and stopped after them.
 */
export function stripeTollboothForFile(options: Parameters<typeof startStripeTollbooth>[0], started: (tollbooth: StripeTollbooth) => void): void {
  let tollbooth: StripeTollbooth | undefined;
  test.describe.configure({ timeout: 180_000, mode: 'default' });
  test.beforeAll(async () => {
    test.setTimeout(240_000);
    tollbooth = await startStripeTollbooth(options);
    started(tollbooth);
  });
  test.afterAll(async () => {
    await tollbooth?.stop();
  });
}

export async function startStripeTollbooth({
  name,
  env = {},
  modelKey,
}: {
  name: string;
  env?: NodeJS.ProcessEnv;
  modelKey?: string;
}): Promise<StripeTollbooth> {
  const port = await freePort();
  const base = `http://localhost:${port}`;
  const children: ChildProcess[] = [];
  const fake = spawn(process.execPath, ['--import', 'tsx', 'src/test-support/fakes/stripe-fake-main.ts'], {
    cwd: serverDir,
    env: { ...process.env, STRIPE_FAKE_WEBHOOK_URL: `http://127.0.0.1:${port}/api/billing/webhook/` },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(fake);
  const first = await new Promise<string>((resolve) => createInterface({ input: fake.stdout! }).once('line', resolve));
  const stripe = JSON.parse(first) as StripeTollbooth['stripe'];
  const dataDir = mkdtempSync(path.join(tmpdir(), `tollbooth-e2e-${name}-`));
  const modelEnv: NodeJS.ProcessEnv = {};
  if (modelKey !== undefined) {
    const modelPort = await freePort();
    children.push(
      spawn(process.execPath, ['--import', 'tsx', 'src/test-support/fakes/openai-fake-main.ts', String(modelPort), modelKey], {
        cwd: serverDir,
        stdio: 'inherit',
      }),
    );
    Object.assign(modelEnv, { OPENAI_BASE_URL: `http://127.0.0.1:${modelPort}/v1`, OPENAI_API_KEY: modelKey });
  }
  const serverEnv: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: base,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    STRIPE_SECRET_KEY: stripe.secretKey,
    STRIPE_PUBLISHABLE_KEY: stripe.publishableKey,
    STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
    STRIPE_API_BASE: stripe.url,
    ...modelEnv,
    ...env,
  };
  delete serverEnv.OIDC_ISSUER;
  delete serverEnv.DATABASE_URL;
  const stop = async () => {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    children.unshift(await startTollbooth(base, serverEnv));
  } catch (error) {
    await stop();
    throw error;
  }
  return { base, stripe, stop };
}

/** Types into a Monaco editor, found by its label, at the end of its text. */
export async function typeInEditor(page: Page, label: string, text: string) {
  const editor = page.getByRole('group', { name: label });
  await expect(editor.locator('.monaco-editor')).toBeVisible();
  await editor.locator('.view-lines').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type(text);
}

/** A full-page screenshot `name`.png into `dir` when it is set (a spec's …_SCREENSHOTS_DIR), else nothing. */
export const screenshotsInto =
  (dir: string | undefined) =>
  async (page: Page, name: string): Promise<void> => {
    if (dir) await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
  };

/**
 * A live public prompt app made through the create form (`price` in dollars per call), its page
 * open and showing it live.
 */
export async function createLivePublicPrompt(page: Page, name: string, price: string, description: string) {
  await page.goto('/applications/create?type=prompt');
  await expect(page.getByRole('heading', { name: 'Create New Prompt or Workflow Application' })).toBeVisible();
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Description').fill(description);
  await page.getByLabel('Visibility').selectOption('public');
  await page.getByLabel('Price per API call (USD)').fill(price);
  await page.getByRole('button', { name: 'Create Application' }).click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
  await page.getByRole('button', { name: 'Set as Live' }).click();
  await expect(page.getByRole('button', { name: 'Set as Live' })).toBeDisabled();
  await expect(page.getByTestId('app-badges')).toContainText('live');
}

/** page.screenshot's options for `name` into SCREENSHOTS_DIR when it is set (undefined: no file). */
export const screenshotPath = (name: string) => (process.env.SCREENSHOTS_DIR ? { path: path.join(process.env.SCREENSHOTS_DIR, name) } : undefined);

/** A new account signed up in `page`, and the Authorization header of its session for the management API. */
export async function signUpCreator(page: Page): Promise<{ authorization: string }> {
  await signUp(page);
  return { authorization: `Bearer ${await accessTokenOf(page)}` };
}
