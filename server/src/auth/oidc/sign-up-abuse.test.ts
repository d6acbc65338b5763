// Sign-ups mint credits: they are limited per client address and overall, and with SMTP_URL set
// the account (with its credits) waits for the emailed link (mail sent through nodemailer to a real SMTP server on
// 127.0.0.1).
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type App, buildApp } from '../../app.ts';
import { type Config, loadConfig } from '../../platform/config.ts';
import { createTestDatabase, type TestDatabase } from '../../test-support/database.ts';
import { mailText, type SmtpFake, startSmtpFake } from '../../test-support/fakes/smtp-fake.ts';
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

const balance = async (accessToken: string) =>
  (await app.inject({ method: 'GET', url: '/api/billing/balance/', headers: { authorization: `Bearer ${accessToken}` } })).json().credits_cents as number;

describe('sign-up credits with mail configured', () => {
  it('come with the account the emailed link creates, once', async () => {
    const email = 'verify-me@example.com';
    const password = 'Saffron-Glacier-27-wren';
    const browser = new TestBrowser(app, config.publicUrl);
    const { challenge } = createPkce();
    const form = await browser.follow(authorizationUrl(config, { challenge, prompt: 'create' }), { stopAt: redirectUri(config) });
    const answered = await browser.submitForm(form, { email, password, display_name: 'Verifier' }, { stopAt: redirectUri(config) });
    expect(answered.status).toBe(200);
    expect(answered.body).toContain('Check your email');
    // Nobody is signed in until the link is used: no account exists yet.
    expect((await database.db.query('SELECT 1 FROM oidc_accounts WHERE email = $1', [email])).rows).toHaveLength(0);

    const mail = await vi.waitFor(
      () => {
        const found = smtp.messages.find((message) => message.to.includes(email));
        if (!found) throw new Error('no mail yet');
        return found;
      },
      { timeout: 10_000, interval: 50 },
    );
    const link = /http:\/\/127\.0\.0\.1:4012(\/oidc\/finish-sign-up\?token=[\w-]+)/.exec(mailText(mail))?.[1];
    expect(link).toBeDefined();
    const created = await browser.submitForm(await browser.request(link!), { password });
    expect(created.status).toBe(200);
    expect(created.body).toContain('Your account is ready');

    const tokens = await signInThroughProvider(app, config, { email, password });
    expect(await balance(tokens.access_token)).toBe(500);
    expect((await browser.request(link!)).status).toBe(400);
    expect(await balance(tokens.access_token)).toBe(500);
    expect((await app.inject({ method: 'GET', url: '/oidc/verify-email?token=forged' })).statusCode).toBe(400);
  });
});

describe('verification links mailed before sign-up waited for the link', () => {
  it('still verify their account, once', async () => {
    const token = 'legacy-token-mailed-before';
    const { rows } = await database.db.query<{ id: string }>(
      `INSERT INTO oidc_accounts (email, password_hash, display_name, verification_token_hash, verification_expires_at)
       VALUES ('legacy@example.com', 'scrypt$x', 'Legacy', $1, now() + interval '1 hour') RETURNING id`,
      [createHash('sha256').update(token).digest('hex')],
    );
    const opened = await app.inject({ method: 'GET', url: `/oidc/verify-email?token=${token}` });
    expect(opened.statusCode).toBe(200);
    expect(opened.body).toContain('Your email is confirmed');
    const verified = await database.db.query('SELECT 1 FROM oidc_accounts WHERE id = $1 AND email_verified_at IS NOT NULL', [rows[0]!.id]);
    expect(verified.rows).toHaveLength(1);
    expect((await app.inject({ method: 'GET', url: `/oidc/verify-email?token=${token}` })).statusCode).toBe(400);
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

  // With mail, each accepted form counts (it sends a mail), whether or not the email has an account.
  const accepted = (response: { status: number; body: string }) => response.status === 200 && response.body.includes('Check your email');

  it('refuse a fourth sign-up an hour from one address, and any sign-up past the overall limit', async () => {
    for (let n = 0; n < 3; n++) expect(accepted(await signUpFrom('198.51.100.1', n))).toBe(true);
    const refused = await signUpFrom('198.51.100.1', 3);
    expect(refused.status).toBe(429);
    expect(refused.body).toContain('Too many accounts were created from your network recently.');
    // One sign-up above, three here: the fifth of the hour still goes through, the sixth does not.
    expect(accepted(await signUpFrom('198.51.100.2', 0))).toBe(true);
    expect((await signUpFrom('198.51.100.3', 0)).status).toBe(429);
  });
});
