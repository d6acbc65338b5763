// Issue 56: the operator of a default `npm start` (embedded accounts, no SMTP_URL) could not reach
// the operator page, since ADMIN_EMAILS needs a verified email and without mail none is verified.
// `npm run operator -- grant EMAIL`, run on the server, verifies it: the account signed up through
// the provider's pages is refused the operator page before, and sees it after signing in again.
// The command runs as a real process on the test's database (PGlite: files in a DATA_DIR of the
// test's, closed while the command holds them).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../app.ts';
import { type Database, openPglite } from '../db/client.ts';
import { migrate } from '../db/migrate.ts';
import { loadConfig } from '../platform/config.ts';
import { createTestDatabase, type TestDatabase } from '../test-support/database.ts';
import { signInThroughProvider } from '../test-support/oidc-browser.ts';
import { runServerCommand } from '../test-support/server-process.ts';

const EMAIL = 'Owner@Example.com';
const PASSWORD = 'Violet-Harbor-42-kiln';

describe('npm run operator -- grant EMAIL', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tollbooth-grant-'));
  let database: TestDatabase | null = null;
  let db: Database | null = null;
  let app: App | null = null;
  const config = loadConfig({
    DATA_DIR: dataDir,
    SECRET_KEY: '3b9f1d7a5c2e8046b1d3f5a7c9e0b2d4f6a8c1e3b5d7f9a0c2e4b6d8f1a3c5e7',
    PUBLIC_URL: 'http://127.0.0.1:4015',
    ADMIN_EMAILS: 'owner@example.com',
    LOG_LEVEL: 'silent',
  });
  const commandEnv = () => ({ DATA_DIR: dataDir, DATABASE_URL: database?.url ?? undefined, ADMIN_EMAILS: 'owner@example.com' });

  const open = async () => {
    if (process.env.DATABASE_URL) {
      database ??= await createTestDatabase();
      db = database.db;
    } else {
      db = await openPglite(dataDir);
      await migrate(db);
    }
    app = await buildApp({ config, db, logger: false });
  };
  const close = async () => {
    await app?.close();
    if (!database) await db?.close();
    app = null;
    db = null;
  };
  const operatorAccess = async () => {
    const tokens = await signInThroughProvider(app!, config, { email: EMAIL, password: PASSWORD });
    return (await app!.inject({ method: 'GET', url: '/api/operator/access/', headers: { authorization: `Bearer ${tokens.access_token}` } })).statusCode;
  };

  afterAll(async () => {
    await close();
    await database?.cleanup();
  });

  it('verifies the email of the account signed up without mail, which then sees the operator page', async () => {
    await open();
    await signInThroughProvider(app!, config, { email: EMAIL, password: PASSWORD, displayName: 'The Operator' });
    expect(await operatorAccess()).toBe(404);
    await close();

    const granted = await runServerCommand(['operator', 'grant', 'owner@EXAMPLE.com'], commandEnv());
    expect(granted.code, granted.stderr).toBe(0);
    const lines = granted.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^Verified Owner@Example\.com \(account "The Operator", signed up \d{4}-\d\d-\d\dT[\d:.]+Z\)\.$/);
    expect(lines[1]).toBe('Check that this is your account: anyone could have signed up with this email before you.');
    expect(lines[2]).toBe('ADMIN_EMAILS lists it: sign out and in again to see the operator page (/operator).');

    await open();
    expect(await operatorAccess()).toBe(200);
    await close();

    const again = await runServerCommand(['operator', 'grant', EMAIL], { ...commandEnv(), ADMIN_EMAILS: undefined });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('was already verified');
    expect(again.stdout).toContain('ADMIN_EMAILS does not list it: set ADMIN_EMAILS=Owner@Example.com');
    // Two commands and two servers' worth of start-up: minutes on a machine other test files keep busy.
  }, 300_000);

  it('refuses an email without an account, and an external identity provider', async () => {
    const unknown = await runServerCommand(['operator', 'grant', 'nobody@example.com'], commandEnv());
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim()).toBe('No account has the email nobody@example.com: sign up with it on the sign-up page first, then run this again.');
    const external = await runServerCommand(['operator', 'grant', EMAIL], { ...commandEnv(), OIDC_ISSUER: 'https://id.example.com' });
    expect(external.code).toBe(1);
    expect(external.stderr).toMatch(/^Tollbooth operator: refused: OIDC_ISSUER is set: accounts belong to your identity provider/);
  }, 180_000);
});
