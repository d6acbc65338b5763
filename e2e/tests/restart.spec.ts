// `npm start` keeps accounts and data across restarts: run a server of our own on a fresh
// DATA_DIR (embedded PGlite, generated secret key and signing keys), sign up, create an app,
// restart the process, and sign in again to find both.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { fillSignInForm, newAccount, signUp, startTollbooth } from './support.ts';

const port = Number(process.env.E2E_PORT ?? 3100) + 7;
const origin = `http://localhost:${port}`;
const dataDir = mkdtempSync(path.join(tmpdir(), 'tollbooth-restart-'));
let server: ChildProcess | null = null;

async function startServer() {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: origin, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  delete env.SECRET_KEY;
  delete env.OIDC_ISSUER;
  server = await startTollbooth(origin, env);
}

async function stopServer() {
  const child = server;
  if (!child) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
  server = null;
}

test.afterAll(async () => {
  await stopServer();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a restart keeps the account, its sign-in and its applications', async ({ browser }) => {
  // Two starts (the first creates the embedded database) and two sign-ins, on a machine shared with the other worker.
  test.setTimeout(360_000);
  await startServer();
  const first = await browser.newContext({ baseURL: origin });
  const page = await first.newPage();
  const account = await signUp(page, newAccount('restart'));
  const created = await page.evaluate(async () => {
    const key = Object.keys(localStorage).find((name) => name.startsWith('oidc.user:'))!;
    const token = JSON.parse(localStorage.getItem(key)!).access_token as string;
    const response = await fetch('/api/app/', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Survives Restarts', type: 'prompt' }),
    });
    return response.status;
  });
  expect(created).toBe(201);
  await first.close();

  await stopServer();
  await startServer();

  const second = await browser.newContext({ baseURL: origin });
  const again = await second.newPage();
  await again.goto('/dashboard');
  await again.goto('/login');
  await again.getByRole('button', { name: 'Sign in with Tollbooth' }).click();
  await fillSignInForm(again, account);
  await expect(again).toHaveURL(/\/dashboard$/);
  await expect(again.getByText('Survives Restarts')).toBeVisible();
  await second.close();
});
