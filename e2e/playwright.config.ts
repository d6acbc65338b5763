import { defineConfig } from '@playwright/test';

const port = process.env.E2E_PORT ?? '3100';
export const baseURL = `http://localhost:${port}`;
/** The Dify fake e2e/start-server.mjs runs beside the server. */
export const difyFakeUrl = `http://127.0.0.1:${process.env.E2E_DIFY_PORT ?? Number(port) + 1000}/v1`;
/** The Dify fake's completion app (a text generator with a required "text" input), on the next port. */
export const difyCompletionFakeUrl = `http://127.0.0.1:${Number(process.env.E2E_DIFY_PORT ?? Number(port) + 1000) + 1}/v1`;

export default defineConfig({
  testDir: './tests',
  // Whole journeys (sign-up, build, publish, call) on a 2-core machine beside the other worker: 60 s was
  // too tight for first-app and callers-next-step on a slow CI machine (52.9 s passing, then over 60 s).
  timeout: 120_000,
  expect: { timeout: 10_000 },
  fullyParallel: true,
  workers: process.env.CI ? 2 : 2,
  retries: 0,
  reporter: process.env.CI ? [['list']] : [['list']],
  use: {
    baseURL,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--disable-sync',
      ],
    },
  },
  webServer: {
    command: 'node start-server.mjs',
    url: `${baseURL}/api/health`,
    reuseExistingServer: false,
    timeout: 180_000,
    stdout: 'pipe',
    stderr: 'pipe',
    // SIGTERM, not Playwright's default SIGKILL: start-server.mjs then drops its PostgreSQL database
    // and removes its data directory (killed, it left one of each behind per run).
    gracefulShutdown: { signal: 'SIGTERM', timeout: 15_000 },
  },
});
