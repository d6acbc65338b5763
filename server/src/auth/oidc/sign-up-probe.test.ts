// Sign-up must not tell whether an email has an account (issue 24, decision 0038). Signing up
// twice with one email, the second time when the account exists, gives the same answer (status,
// headers, page or redirect) apart from the interaction's uid and cookie values. With mail
// (SMTP_URL, a real SMTP server on 127.0.0.1) the account is only created by the mailed link and
// the owner of a taken email gets a notice; the existing account stays as it was and the prober is
// not signed in. Without mail, the same email and password signs in like a new sign-up.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type App, buildApp } from '../../app.ts';
import { type Config, loadConfig } from '../../platform/config.ts';
import { createTestDatabase, type TestDatabase } from '../../test-support/database.ts';
import { mailSubject, mailText, type ReceivedMail, type SmtpFake, startSmtpFake } from '../../test-support/fakes/smtp-fake.ts';
import { authorizationUrl, type BrowserResponse, createPkce, redirectUri, signInThroughProvider, TestBrowser } from '../../test-support/oidc-browser.ts';

const PUBLIC_URL = 'http://127.0.0.1:4013';

const configFor = (smtpUrl: string | null): Config =>
  loadConfig({
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'tollbooth-signup-probe-')),
    SECRET_KEY: 'e'.repeat(64),
    PUBLIC_URL,
    // Every sign-up here comes from one address; the limits have their own test (sign-up-abuse.test.ts).
    SIGNUP_LIMIT_PER_ADDRESS_PER_HOUR: '1000',
    SIGNUP_LIMIT_PER_HOUR: '1000',
    ...(smtpUrl ? { SMTP_URL: smtpUrl, MAIL_FROM: 'Tollbooth <no-reply@tollbooth.test>' } : {}),
    LOG_LEVEL: 'silent',
  });

/** Opens the sign-up page (prompt=create) in a fresh browser and posts the form. */
async function signUp(app: App, config: Config, fields: { email: string; password: string; display_name: string }) {
  const browser = new TestBrowser(app, config.publicUrl);
  const { challenge } = createPkce();
  const form = await browser.follow(authorizationUrl(config, { challenge, prompt: 'create' }), { stopAt: redirectUri(config) });
  expect(form.body).toContain('Create your account');
  const uid = /\/oidc\/interaction\/([\w-]+)\/signup/.exec(form.body)?.[1];
  if (!uid) throw new Error(`no interaction uid in ${form.body}`);
  const response = await browser.request(new URL(`/oidc/interaction/${uid}/signup`, config.publicUrl).href, { form: fields });
  // A redirect is followed, as a browser would, to see where it leads.
  const location = response.headers.location;
  const landed =
    response.status === 303 && typeof location === 'string'
      ? await browser.follow(new URL(location, response.url).href, { stopAt: redirectUri(config) })
      : response;
  return { browser, uid, response, reachedApp: landed.url.startsWith(redirectUri(config)) };
}

/** What an observer of the answer can compare, with the interaction's uid, the request id and the cookies' values and dates left out. */
function observable({ uid, response }: { uid: string; response: BrowserResponse }) {
  const scrub = (text: string) => text.replaceAll(uid, '<uid>');
  const headers: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (name === 'date') continue;
    // A random id per request, whatever the answer.
    if (name === 'x-request-id') {
      headers[name] = '<random>';
      continue;
    }
    if (name === 'set-cookie') {
      const lines = Array.isArray(value) ? value : [String(value)];
      headers[name] = lines.map((line) =>
        scrub(line)
          .replace(/^([^=]+)=[^;]*/, '$1=<value>')
          .replace(/expires=[^;]*/i, 'expires=<date>'),
      );
    } else headers[name] = scrub(String(value));
  }
  return { status: response.status, headers, body: scrub(response.body) };
}

/** Whether this browser is signed in at the provider: an authorization request then goes straight to the app. */
async function signedIn(browser: TestBrowser, config: Config) {
  const { challenge } = createPkce();
  const page = await browser.follow(authorizationUrl(config, { challenge }), { stopAt: redirectUri(config) });
  return page.url.startsWith(redirectUri(config));
}

async function signInFails(app: App, config: Config, email: string, password: string) {
  const browser = new TestBrowser(app, config.publicUrl);
  const { challenge } = createPkce();
  const form = await browser.follow(authorizationUrl(config, { challenge }), { stopAt: redirectUri(config) });
  const answer = await browser.submitForm(form, { email, password }, { stopAt: redirectUri(config) });
  return answer.status === 200 && answer.body.includes('Incorrect email or password.');
}

const accountRows = async (database: TestDatabase, email: string) =>
  (
    await database.db.query<Record<string, unknown>>(
      'SELECT id, email, password_hash, display_name, email_verified_at, created_at FROM oidc_accounts WHERE lower(email) = lower($1)',
      [email],
    )
  ).rows;

/** A logger that keeps the lines of warnings and worse. */
const captureWarnings = () => {
  const lines: string[] = [];
  return { lines, logger: { level: 'warn', stream: { write: (line: string) => void lines.push(line) } } };
};
const NO_MAIL_WARNING = 'SMTP_URL is not set: sign-up creates accounts at once, so it can tell whether an email has an account';

describe('with mail configured', () => {
  let database: TestDatabase;
  let smtp: SmtpFake;
  let config: Config;
  let app: App;
  const warnings = captureWarnings();

  beforeAll(async () => {
    [database, smtp] = await Promise.all([createTestDatabase(), startSmtpFake()]);
    config = configFor(smtp.url);
    app = await buildApp({ config, db: database.db, logger: warnings.logger });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await Promise.all([database?.cleanup(), smtp?.close()]);
  });

  const mailsTo = (email: string) => smtp.messages.filter((message) => message.to.includes(email));
  /** Waits until `count` mails reached the address (they are sent after the answer). */
  const waitForMails = (email: string, count: number) =>
    vi.waitFor(
      () => {
        const mails = mailsTo(email);
        if (mails.length < count) throw new Error(`${mails.length} of ${count} mails to ${email}`);
        return mails;
      },
      { timeout: 10_000, interval: 50 },
    );
  const finishLink = (mail: ReceivedMail) => /http:\/\/127\.0\.0\.1:4013(\/oidc\/finish-sign-up\?token=[\w-]+)/.exec(mailText(mail))?.[1];

  it('answers a taken email as it answered the new one, mails its owner a notice, and changes nothing', async () => {
    const email = 'owner@example.com';
    const password = 'Saffron-Glacier-27-wren';
    const first = await signUp(app, config, { email, password, display_name: 'Owner' });
    expect(first.response.status).toBe(200);
    expect(first.response.body).toContain('Check your email');
    expect(first.response.body).toContain('owner@example.com');
    expect(first.reachedApp).toBe(false);
    expect(await accountRows(database, email)).toEqual([]);
    expect(await signedIn(first.browser, config)).toBe(false);

    // The new email's mail: a link that creates the account with the password chosen on the form.
    const [welcome] = await waitForMails(email, 1);
    expect(mailSubject(welcome!)).toBe('Finish creating your Tollbooth account');
    const link = finishLink(welcome!);
    expect(link).toBeDefined();
    const owner = new TestBrowser(app, config.publicUrl);
    const form = await owner.request(link!);
    expect(form.status).toBe(200);
    expect(form.body).toContain('Finish creating your account');
    // Opening the link (as a mail scanner does) creates nothing; the wrong password neither.
    expect(await accountRows(database, email)).toEqual([]);
    const wrong = await owner.submitForm(form, { password: 'Amber-Falcon-77-moss' });
    expect(wrong.status).toBe(200);
    expect(wrong.body).toContain('That is not the password chosen when signing up.');
    expect(await accountRows(database, email)).toEqual([]);
    const created = await owner.submitForm(wrong, { password });
    expect(created.status).toBe(200);
    expect(created.body).toContain('Your account is ready');
    // Once: the link is used up.
    expect((await owner.submitForm(form, { password })).status).toBe(400);
    expect((await owner.request(link!)).status).toBe(400);

    const [account] = await accountRows(database, email);
    expect(account?.display_name).toBe('Owner');
    expect(account?.email_verified_at).not.toBeNull();
    const tokens = await signInThroughProvider(app, config, { email, password });
    const balance = await app.inject({ method: 'GET', url: '/api/billing/balance/', headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(balance.json().credits_cents).toBe(500);

    // Now the email has an account: another password, and its own password, get the same answer as the first sign-up.
    for (const probe of [
      { email, password: 'Amber-Falcon-77-moss', display_name: 'Prober' },
      { email, password, display_name: 'Owner again' },
    ]) {
      const taken = await signUp(app, config, probe);
      expect(observable(taken)).toEqual(observable(first));
      expect(taken.reachedApp).toBe(false);
      expect(await signedIn(taken.browser, config)).toBe(false);
    }

    // The owner is told, with a way to sign in, and no link that creates anything.
    const mails = await waitForMails(email, 3);
    for (const notice of mails.slice(1)) {
      expect(mailSubject(notice)).toBe('Someone tried to create a Tollbooth account with your email');
      expect(mailText(notice)).toContain(`${PUBLIC_URL}/login`);
      expect(finishLink(notice)).toBeUndefined();
    }
    expect(await accountRows(database, email)).toEqual([account]);
    expect(await signInFails(app, config, email, 'Amber-Falcon-77-moss')).toBe(true);
    expect((await database.db.query('SELECT 1 FROM oidc_pending_sign_ups WHERE lower(email) = lower($1)', [email])).rows).toEqual([]);
  });

  it('lets only the password chosen on the form finish a sign-up, so a stranger cannot prepare an account for the email', async () => {
    const email = 'target@example.com';
    await signUp(app, config, { email, password: 'Stranger-Lantern-58-moth', display_name: 'Stranger' });
    await signUp(app, config, { email, password: 'Rightful-Meadow-31-quill', display_name: 'Rightful' });
    const [strangers, own] = (await waitForMails(email, 2)).map((mail) => finishLink(mail)!);
    const browser = new TestBrowser(app, config.publicUrl);

    // The owner, who did not choose the stranger's password, cannot finish the stranger's sign-up.
    const strangerForm = await browser.request(strangers!);
    expect((await browser.submitForm(strangerForm, { password: 'Rightful-Meadow-31-quill' })).body).toContain('That is not the password chosen');
    const done = await browser.submitForm(await browser.request(own!), { password: 'Rightful-Meadow-31-quill' });
    expect(done.body).toContain('Your account is ready');
    // Creating the account removed every other sign-up waiting for the email.
    expect((await browser.submitForm(strangerForm, { password: 'Stranger-Lantern-58-moth' })).status).toBe(400);
    expect((await accountRows(database, email)).map((row) => row.display_name)).toEqual(['Rightful']);
  });

  it('does not warn at start-up that sign-up tells', () => {
    expect(warnings.lines.some((line) => line.includes(NO_MAIL_WARNING))).toBe(false);
  });

  it('sends a link whose email got an account meanwhile to sign-in, and creates nothing', async () => {
    const email = 'meanwhile@example.com';
    await signUp(app, config, { email, password: 'Saffron-Glacier-27-wren', display_name: 'Late' });
    const [mail] = await waitForMails(email, 1);
    // An account made another way (before mail was configured, say).
    await database.db.query(`INSERT INTO oidc_accounts (email, password_hash, display_name) VALUES ('MEANWHILE@example.com', 'scrypt$x', 'Other')`);
    const browser = new TestBrowser(app, config.publicUrl);
    const answer = await browser.submitForm(await browser.request(finishLink(mail!)!), { password: 'Saffron-Glacier-27-wren' });
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('This email already has an account');
    expect((await accountRows(database, email)).map((row) => row.display_name)).toEqual(['Other']);
    expect((await database.db.query('SELECT 1 FROM oidc_pending_sign_ups WHERE lower(email) = lower($1)', [email])).rows).toEqual([]);
  });

  it('refuses an expired link', async () => {
    const email = 'late@example.com';
    expect((await signUp(app, config, { email, password: 'Saffron-Glacier-27-wren', display_name: 'Late' })).response.body).toContain('Check your email');
    const [mail] = await waitForMails(email, 1);
    await database.db.query(`UPDATE oidc_pending_sign_ups SET expires_at = now() - interval '1 second' WHERE email = $1`, [email]);
    const browser = new TestBrowser(app, config.publicUrl);
    const opened = await browser.request(finishLink(mail!)!);
    expect(opened.status).toBe(400);
    expect(opened.body).toContain('This link is not valid');
    const token = new URL(finishLink(mail!)!, PUBLIC_URL).searchParams.get('token')!;
    const posted = await browser.request(`${PUBLIC_URL}/oidc/finish-sign-up`, { form: { token, password: 'Saffron-Glacier-27-wren' } });
    expect(posted.status).toBe(400);
    expect(await accountRows(database, email)).toEqual([]);
  });
});

describe('without mail', () => {
  let database: TestDatabase;
  let config: Config;
  let app: App;
  const warnings = captureWarnings();

  beforeAll(async () => {
    database = await createTestDatabase();
    config = configFor(null);
    app = await buildApp({ config, db: database.db, logger: warnings.logger });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await database?.cleanup();
  });

  it('says at start-up that sign-up can tell whether an email has an account', () => {
    expect(warnings.lines.some((line) => line.includes(NO_MAIL_WARNING))).toBe(true);
  });

  it('answers a taken email with its password as it answered the new one: signed in to that account', async () => {
    const email = 'twice@example.com';
    const password = 'Violet-Harbor-42-kiln';
    const first = await signUp(app, config, { email, password, display_name: 'First' });
    expect(first.response.status).toBe(303);
    expect(first.reachedApp).toBe(true);
    const [account] = await accountRows(database, email);
    const again = await signUp(app, config, { email, password, display_name: 'Second' });
    expect(observable(again)).toEqual(observable(first));
    expect(again.reachedApp).toBe(true);
    expect(await signedIn(again.browser, config)).toBe(true);
    expect(await accountRows(database, email)).toEqual([account]);
  });

  it('refuses a taken email with another password without changing the account or signing anyone in (decision 0038: visible without mail)', async () => {
    const email = 'kept@example.com';
    await signUp(app, config, { email, password: 'Violet-Harbor-42-kiln', display_name: 'Kept' });
    const before = await accountRows(database, email);
    const probe = await signUp(app, config, { email, password: 'Amber-Falcon-77-moss', display_name: 'Prober' });
    expect(probe.response.status).toBe(200);
    expect(probe.response.body).toContain('We could not create an account with this email and password.');
    expect(probe.reachedApp).toBe(false);
    expect(await signedIn(probe.browser, config)).toBe(false);
    expect(await accountRows(database, email)).toEqual(before);
  });
});
