// Sign-ups mint credits: they are limited per client address and overall, and with SMTP_URL set
// the credits wait for a verified email (mail sent through nodemailer to a real SMTP server on
// 127.0.0.1).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../app.ts';
import { type Config, loadConfig } from '../../config.ts';
import { createTestDatabase, type TestDatabase } from '../../test-support/database.ts';
import { type SmtpFake, startSmtpFake } from '../../test-support/fakes/smtp-fake.ts';
import { authorizationUrl, createPkce, redirectUri, signInThroughProvider, TestBrowser } from '../../test-support/oidc-browser.ts';

let database: TestDatabase;
let smtp: SmtpFake;
let config: Config;
let app: App;

beforeAll(async () => {
  [database, smtp] = await Promise.all([createTestDatabase(), startSmtpFake()]);
  config = loadConfig({
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'tollbooth-signup-')),
    SECRET_KEY: 'd'.repeat(64),
    PUBLIC_URL: 'http://127.0.0.1:4012',
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Tollbooth <no-reply@tollbooth.test>',
    SIGNUP_LIMIT_PER_ADDRESS_PER_HOUR: '3',
    SIGNUP_LIMIT_PER_HOUR: '5',
    TRUST_PROXY: 'on',
    LOG_LEVEL: 'silent',
  });
  app = await buildApp({ config, db: database.db, logger: false });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await Promise.all([database?.cleanup(), smtp?.close()]);
});

const decodeQuotedPrintable = (raw: string) =>
  raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

const balance = async (accessToken: string) =>
  (await app.inject({ method: 'GET', url: '/api/billing/balance/', headers: { authorization: `Bearer ${accessToken}` } })).json().credits_cents as number;

describe('sign-up credits with mail configured', () => {
  it('are granted once the emailed link is opened, once', async () => {
    const tokens = await signInThroughProvider(app, config, { email: 'verify-me@example.com', password: 'Saffron-Glacier-27-wren', displayName: 'Verifier' });
    expect(await balance(tokens.access_token)).toBe(0);

    const mail = smtp.messages.find((message) => message.to.includes('verify-me@example.com'));
    expect(mail).toBeDefined();
    const link = /http:\/\/127\.0\.0\.1:4012(\/oidc\/verify-email\?token=[\w-]+)/.exec(decodeQuotedPrintable(mail!.raw))?.[1];
    expect(link).toBeDefined();

    const opened = await app.inject({ method: 'GET', url: link! });
    expect(opened.statusCode).toBe(200);
    expect(opened.body).toContain('Your email is confirmed');
    expect(await balance(tokens.access_token)).toBe(500);

    const again = await app.inject({ method: 'GET', url: link! });
    expect(again.statusCode).toBe(400);
    expect(await balance(tokens.access_token)).toBe(500);
    expect((await app.inject({ method: 'GET', url: '/oidc/verify-email?token=forged' })).statusCode).toBe(400);
  });
});

describe('sign-up limits', () => {
  const signUpFrom = async (address: string, n: number) => {
    const browser = new TestBrowser(app, config.publicUrl, { 'x-forwarded-for': address });
    const { challenge } = createPkce();
    const page = await browser.follow(authorizationUrl(config, { challenge, prompt: 'create' }), { stopAt: redirectUri(config) });
    return browser.submitForm(
      page,
      { email: `limit-${address}-${n}@example.com`, password: 'Saffron-Glacier-27-wren', display_name: `L ${n}` },
      { stopAt: redirectUri(config) },
    );
  };

  it('refuse a fourth account an hour from one address, and any account past the overall limit', async () => {
    for (let n = 0; n < 3; n++) expect((await signUpFrom('198.51.100.1', n)).url.startsWith(redirectUri(config))).toBe(true);
    const refused = await signUpFrom('198.51.100.1', 3);
    expect(refused.status).toBe(429);
    expect(refused.body).toContain('Too many accounts were created from your network recently.');
    // One account above, three here: the fifth of the hour still goes through, the sixth does not.
    expect((await signUpFrom('198.51.100.2', 0)).url.startsWith(redirectUri(config))).toBe(true);
    expect((await signUpFrom('198.51.100.3', 0)).status).toBe(429);
  });
});
