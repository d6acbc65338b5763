// Drives the embedded provider end to end through its real HTTP surface: discovery, the sign-in
// and sign-up pages, the code + PKCE exchange, refresh, userinfo, revocation and sign-out.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantSignupCredits, openUserAccounts } from '../../billing/service.ts';
import { type Database, openPglite } from '../../db/client.ts';
import { migrate } from '../../db/migrate.ts';
import { type Config, loadConfig } from '../../platform/config.ts';
import { authorizationUrl, createPkce, exchangeCode, redirectUri, requestTokens, signInThroughProvider, TestBrowser } from '../../test-support/oidc-browser.ts';
import { type EmbeddedOidc, mountEmbeddedOidc } from './index.ts';

const SECRET_KEY = 'a1'.repeat(32);
const PUBLIC_URL = 'http://127.0.0.1:4010';

let dataDir: string;
let config: Config;
let db: Database;
let app: FastifyInstance;
let oidc: EmbeddedOidc;
const userAccounts = { openUserAccounts, grantSignupCredits };

async function mountApp(database: Database): Promise<{ app: FastifyInstance; oidc: EmbeddedOidc }> {
  const instance = Fastify({ logger: false, trustProxy: true });
  const mounted = await mountEmbeddedOidc(instance, { config, db: database, userAccounts });
  await instance.ready();
  return { app: instance, oidc: mounted };
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'tollbooth-oidc-'));
  config = loadConfig({ DATA_DIR: dataDir, SECRET_KEY, PUBLIC_URL, SIGNUP_LIMIT_PER_ADDRESS_PER_HOUR: '10000' });
  db = await openPglite(null);
  await migrate(db);
  ({ app, oidc } = await mountApp(db));
});

afterAll(async () => {
  await app?.close();
  await db?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

let emailCounter = 0;
const uniqueEmail = () => `user${++emailCounter}-${Date.now()}@example.com`;

async function verifyAccessToken(token: string) {
  const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(oidc.jwks), {
    issuer: config.oidc.issuer,
    audience: config.oidc.audience,
  });
  return { payload, protectedHeader };
}

/** Opens the provider's page for a fresh authorization request. */
async function openAuthorization(browser: TestBrowser, prompt?: string) {
  const { verifier, challenge } = createPkce();
  const page = await browser.follow(authorizationUrl(config, { challenge, ...(prompt ? { prompt } : {}) }), { stopAt: redirectUri(config) });
  return { page, verifier };
}

describe('discovery and keys', () => {
  it('publishes the issuer under /oidc with S256-only PKCE and the create prompt', async () => {
    const response = await app.inject({ url: '/oidc/.well-known/openid-configuration', headers: { host: '127.0.0.1:4010' } });
    expect(response.statusCode).toBe(200);
    const discovery = response.json();
    expect(discovery.issuer).toBe(`${PUBLIC_URL}/oidc`);
    expect(discovery.issuer.endsWith('/oidc')).toBe(true);
    expect(discovery.code_challenge_methods_supported).toEqual(['S256']);
    expect(discovery.prompt_values_supported).toContain('create');
    expect(discovery.authorization_endpoint).toBe(`${PUBLIC_URL}/oidc/auth`);
    expect(discovery.token_endpoint).toBe(`${PUBLIC_URL}/oidc/token`);
    expect(discovery.userinfo_endpoint).toBe(`${PUBLIC_URL}/oidc/me`);
    expect(discovery.revocation_endpoint).toBe(`${PUBLIC_URL}/oidc/token/revocation`);
    expect(discovery.end_session_endpoint).toBe(`${PUBLIC_URL}/oidc/session/end`);
    expect(discovery.scopes_supported).toEqual(expect.arrayContaining(['openid', 'profile', 'email', 'offline_access']));
  });

  it('builds endpoint URLs from PUBLIC_URL only, whatever Host or X-Forwarded-* a client sends', async () => {
    const response = await app.inject({
      url: '/oidc/.well-known/openid-configuration',
      headers: { host: 'internal:3000', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' },
    });
    expect(response.json().issuer).toBe(`${PUBLIC_URL}/oidc`);
    expect(response.json().authorization_endpoint).toBe(`${PUBLIC_URL}/oidc/auth`);
    expect(response.json().token_endpoint).toBe(`${PUBLIC_URL}/oidc/token`);
    // Cookie flags follow PUBLIC_URL (http here), not a client's X-Forwarded-Proto.
    const { challenge } = createPkce();
    const authorize = await app.inject({
      url: authorizationUrl(config, { challenge }).replace(PUBLIC_URL, ''),
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' },
    });
    expect(authorize.statusCode).toBe(303);
    expect(authorize.headers.location).toMatch(/^\/oidc\/interaction\//);
    const cookies = ([] as string[]).concat(authorize.headers['set-cookie'] ?? []);
    expect(cookies.length).toBeGreaterThan(0);
    for (const cookie of cookies) expect(cookie.toLowerCase()).not.toContain('secure');
  });

  it('serves public keys only, the same ones mountEmbeddedOidc returns', async () => {
    const response = await app.inject({ url: '/oidc/jwks', headers: { host: '127.0.0.1:4010' } });
    const { keys } = response.json() as { keys: Record<string, unknown>[] };
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.map((key) => key.kid)).toEqual(oidc.jwks.keys.map((key) => key.kid));
    for (const key of [...keys, ...oidc.jwks.keys]) {
      expect(key).not.toHaveProperty('d');
      expect(key).not.toHaveProperty('p');
    }
    expect(oidc.jwks.keys.some((key) => key.alg === 'RS256' && key.kty === 'RSA')).toBe(true);
  });

  it('lets verifiers cache the JWKS five minutes and revalidate it to 304 (issue 26)', async () => {
    const first = await app.inject({ url: '/oidc/jwks', headers: { host: '127.0.0.1:4010' } });
    expect(first.statusCode).toBe(200);
    expect(first.headers['cache-control']).toBe('public, max-age=300');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^W\/"[\w-]+"$/);
    const again = await app.inject({ url: '/oidc/jwks', headers: { host: '127.0.0.1:4010', 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const other = await app.inject({ url: '/oidc/jwks', headers: { host: '127.0.0.1:4010', 'if-none-match': 'W/"stale"' } });
    expect(other.statusCode).toBe(200);
    expect((other.json() as { keys: unknown[] }).keys.length).toBeGreaterThan(0);
  });

  it('stores the signing key encrypted and keeps it across mounts', async () => {
    const { rows } = await db.query<{ encrypted_jwk: string }>('SELECT encrypted_jwk FROM oidc_signing_keys');
    expect(rows).toHaveLength(1);
    expect(rows[0]?.encrypted_jwk).not.toContain('"d"');

    const second = await mountApp(db);
    try {
      expect(second.oidc.jwks).toEqual(oidc.jwks);
    } finally {
      await second.app.close();
    }
  });

  it('gives processes that start together on an empty database the same key', async () => {
    const fresh = await openPglite(null);
    await migrate(fresh);
    const [first, second] = await Promise.all([mountApp(fresh), mountApp(fresh)]);
    try {
      expect(first.oidc.jwks).toEqual(second.oidc.jwks);
      const { rows } = await fresh.query('SELECT kid FROM oidc_signing_keys');
      expect(rows).toHaveLength(1);
    } finally {
      await Promise.all([first.app.close(), second.app.close()]);
      await fresh.close();
    }
  });
});

describe('sign-up (prompt=create)', () => {
  it('creates the account, signs it in and issues a JWT access token for the API', async () => {
    const browser = new TestBrowser(app, config.publicUrl);
    const { verifier, challenge } = createPkce();
    const state = 'state-123';
    const page = await browser.follow(authorizationUrl(config, { challenge, state, prompt: 'create' }), { stopAt: redirectUri(config) });
    expect(page.status).toBe(200);
    expect(page.url).toContain('/oidc/interaction/');
    expect(page.body).toContain('<label for="email">Email</label>');
    expect(page.body).toContain('<label for="password">Password</label>');
    expect(page.body).toContain('<label for="display_name">Display name</label>');
    expect(page.body).toContain('>Create account</button>');
    expect(page.body).toContain('?screen=signin');

    const email = uniqueEmail();
    const done = await browser.submitForm(
      page,
      { email, password: 'correct horse battery staple', display_name: 'Ada Lovelace' },
      { stopAt: redirectUri(config) },
    );
    const callback = new URL(done.url);
    expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri(config));
    expect(callback.searchParams.get('state')).toBe(state);
    expect(callback.searchParams.get('code')).toBeTruthy();

    const tokens = await exchangeCode(browser, config, done.url, verifier);
    expect(tokens.status).toBe(200);
    expect(tokens.body.token_type).toBe('Bearer');
    expect(tokens.body.refresh_token).toBeTruthy();

    const { payload, protectedHeader } = await verifyAccessToken(tokens.body.access_token);
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload.aud).toBe(config.oidc.audience);
    expect(payload.sub).toMatch(/^[0-9a-f-]{36}$/);
    expect(payload.email).toBe(email);
    expect(payload.name).toBe('Ada Lovelace');
    expect(payload.client_id).toBe(config.oidc.clientId);

    const idToken = decodeJwt(tokens.body.id_token);
    expect(idToken.sub).toBe(payload.sub);
    expect(idToken.aud).toBe(config.oidc.clientId);
    expect(idToken.email).toBe(email);
    expect(idToken.email_verified).toBe(false);
    expect(idToken.name).toBe('Ada Lovelace');

    const { rows } = await db.query<{ password_hash: string; email: string }>('SELECT password_hash, email FROM oidc_accounts WHERE id = $1', [payload.sub]);
    expect(rows[0]?.email).toBe(email);
    expect(rows[0]?.password_hash).toMatch(/^scrypt\$\d+\$\d+\$\d+\$[\w-]+\$[\w-]+$/);
    expect(rows[0]?.password_hash).not.toContain('correct horse battery staple');
  });

  it("signing up with an existing account's email and its password signs in, as a new account would (issue 24)", async () => {
    const email = uniqueEmail();
    const first = await signInThroughProvider(app, config, { email, password: 'Violet-Harbor-42-kiln', displayName: 'First' });
    const again = await signInThroughProvider(app, config, { email, password: 'Violet-Harbor-42-kiln', displayName: 'Whoever' });
    const subject = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sub as string;
    expect(subject(again.access_token)).toBe(subject(first.access_token));
  });

  it('shows clear errors and keeps what was typed', async () => {
    const email = uniqueEmail();
    await signInThroughProvider(app, config, { email, password: 'Violet-Harbor-42-kiln', displayName: 'First' });

    const browser = new TestBrowser(app, config.publicUrl);
    const { page } = await openAuthorization(browser, 'create');

    // The form does not confirm that the email has an account (issue 24): one neutral message.
    const taken = await browser.submitForm(page, { email: email.toUpperCase(), password: 'Amber-Falcon-77-moss', display_name: 'Second' });
    expect(taken.status).toBe(200);
    expect(taken.body).not.toContain('already exists');
    expect(taken.body).toContain('We could not create an account with this email and password. If you already have an account, sign in instead.');
    expect(taken.body).toContain(`value="${email.toUpperCase()}"`);
    expect(taken.body).toContain('value="Second"');

    const short = await browser.submitForm(taken, { email: uniqueEmail(), password: 'short', display_name: 'Shorty' });
    expect(short.status).toBe(200);
    expect(short.body).toContain('Password must be at least 8 characters.');

    const invalid = await browser.submitForm(short, { email: 'not-an-email', password: 'long enough Zebra-42', display_name: 'X' });
    expect(invalid.body).toContain('Enter a valid email address.');

    const nameless = await browser.submitForm(invalid, { email: uniqueEmail(), password: 'long enough Zebra-42', display_name: '   ' });
    expect(nameless.body).toContain('Display name is required.');

    const escaped = await browser.submitForm(nameless, { email: 'bad', password: 'long enough Zebra-42', display_name: '<script>alert(1)</script>' });
    expect(escaped.body).not.toContain('<script>alert(1)</script>');
    expect(escaped.body).toContain('&lt;script&gt;');

    const { rows } = await db.query('SELECT 1 FROM oidc_accounts WHERE lower(email) = lower($1)', [email]);
    expect(rows).toHaveLength(1);
  });

  it('lets a user sent to sign-up switch to sign-in within the same request', async () => {
    const email = uniqueEmail();
    const created = await signInThroughProvider(app, config, { email, password: 'Violet-Harbor-42-kiln', displayName: 'Switcher' });

    const browser = new TestBrowser(app, config.publicUrl);
    const { page, verifier } = await openAuthorization(browser, 'create');
    const link = /href="([^"]*\?screen=signin)"/.exec(page.body)?.[1];
    expect(link).toBeTruthy();
    const signInPage = await browser.follow(new URL(link ?? '', page.url).href);
    expect(signInPage.body).toContain('>Sign in</button>');
    const done = await browser.submitForm(signInPage, { email, password: 'Violet-Harbor-42-kiln' }, { stopAt: redirectUri(config) });
    expect(done.url.startsWith(redirectUri(config))).toBe(true);
    const tokens = await exchangeCode(browser, config, done.url, verifier);
    expect(decodeJwt(tokens.body.access_token).sub).toBe(decodeJwt(created.access_token).sub);
  });
});

describe('sign-in', () => {
  it('slows down, never refuses, the real owner after others failed 10 times on their email, and says why', async () => {
    const email = uniqueEmail();
    await signInThroughProvider(app, config, { email, password: 'the right one, Kestrel 91', displayName: 'Target' });
    // The guesses come from many addresses; the owner signs in from another one.
    for (let attempt = 0; attempt < 10; attempt++) {
      const attacker = new TestBrowser(app, config.publicUrl, { 'x-forwarded-for': `198.51.100.${attempt + 1}` });
      const { page } = await openAuthorization(attacker);
      expect((await attacker.submitForm(page, { email, password: `guess ${attempt}` })).body).toContain('Incorrect email or password.');
    }
    const attacker = new TestBrowser(app, config.publicUrl, { 'x-forwarded-for': '198.51.100.99' });
    const slowed = await attacker.submitForm((await openAuthorization(attacker)).page, { email, password: 'guess again' });
    expect(slowed.body).toContain('each attempt now waits 2 seconds');
    const owner = new TestBrowser(app, config.publicUrl, { 'x-forwarded-for': '192.0.2.10' });
    const { page } = await openAuthorization(owner);
    const started = performance.now();
    const done = await owner.submitForm(page, { email, password: 'the right one, Kestrel 91' }, { stopAt: redirectUri(config) });
    expect(done.url.startsWith(redirectUri(config))).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1900);
  });

  it('refuses an address after 20 failed sign-ins across any accounts (password spraying)', async () => {
    const sprayer = new TestBrowser(app, config.publicUrl, { 'x-forwarded-for': '203.0.113.7' });
    let { page } = await openAuthorization(sprayer);
    for (let attempt = 0; attempt < 20; attempt++) {
      page = await sprayer.submitForm(page, { email: uniqueEmail(), password: 'Winter2024!' });
      expect(page.status).toBe(200);
    }
    const refused = await sprayer.submitForm(page, { email: uniqueEmail(), password: 'Winter2024!' });
    expect(refused.status).toBe(429);
    expect(refused.body).toContain('Too many failed sign-in attempts from your network.');
  });

  it('answers an unknown email and a wrong password with one message and the same scrypt work', async () => {
    const email = uniqueEmail();
    await signInThroughProvider(app, config, { email, password: 'timing-Target-88-fjord', displayName: 'Timed' });
    const browser = new TestBrowser(app, config.publicUrl, { 'x-forwarded-for': '192.0.2.77' });
    let { page } = await openAuthorization(browser);
    const time = async (fields: Record<string, string>) => {
      const started = performance.now();
      page = await browser.submitForm(page, fields);
      expect(page.body).toContain('Incorrect email or password.');
      return performance.now() - started;
    };
    await time({ email: uniqueEmail(), password: 'warm-up' });
    const unknown: number[] = [];
    const wrong: number[] = [];
    for (let i = 0; i < 3; i++) {
      unknown.push(await time({ email: uniqueEmail(), password: 'some guess' }));
      wrong.push(await time({ email, password: 'some guess' }));
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[1]!;
    // Both run one scrypt (tens of ms); an unknown email used to answer in a few ms.
    expect(median(unknown)).toBeGreaterThan(median(wrong) / 3);
  });

  it('refuses weak passwords at sign-up and says why', async () => {
    const browser = new TestBrowser(app, config.publicUrl);
    const { page } = await openAuthorization(browser, 'create');
    const email = uniqueEmail();
    for (const password of ['password', '12345678', email, 'qwertyuiop']) {
      const refused = await browser.submitForm(page, { email, password, display_name: 'Weak' });
      expect(refused.body).toContain('This password is too easy to guess.');
    }
  });

  it('explains a wrong password or an unknown email, then signs in', async () => {
    const email = uniqueEmail();
    const created = await signInThroughProvider(app, config, { email, password: 'right password: Quill 58 dune', displayName: 'Grace' });

    const browser = new TestBrowser(app, config.publicUrl);
    const { page, verifier } = await openAuthorization(browser);
    expect(page.body).toContain('<label for="email">Email</label>');
    expect(page.body).toContain('<label for="password">Password</label>');
    expect(page.body).toContain('>Sign in</button>');
    expect(page.body).toContain('?screen=signup');

    const wrong = await browser.submitForm(page, { email, password: 'wrong password' });
    expect(wrong.status).toBe(200);
    expect(wrong.body).toContain('Incorrect email or password.');
    expect(wrong.body).toContain(`value="${email}"`);

    const unknown = await browser.submitForm(wrong, { email: uniqueEmail(), password: 'whatever it is' });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toContain('Incorrect email or password.');

    const done = await browser.submitForm(unknown, { email: email.toUpperCase(), password: 'right password: Quill 58 dune' }, { stopAt: redirectUri(config) });
    expect(done.url.startsWith(redirectUri(config))).toBe(true);
    const tokens = await exchangeCode(browser, config, done.url, verifier);
    expect(tokens.status).toBe(200);
    expect(decodeJwt(tokens.body.access_token).sub).toBe(decodeJwt(created.access_token).sub);
  });

  it('does not ask a signed-in browser again, and never shows a consent screen', async () => {
    const browser = new TestBrowser(app, config.publicUrl);
    await signInThroughProvider(app, config, { email: uniqueEmail(), password: 'Violet-Harbor-42-kiln', displayName: 'Again' }, browser);
    const { page, verifier } = await openAuthorization(browser);
    expect(page.url.startsWith(redirectUri(config))).toBe(true);
    const tokens = await exchangeCode(browser, config, page.url, verifier);
    expect(tokens.status).toBe(200);
    expect(tokens.body.refresh_token).toBeTruthy();
  });

  it('rejects a form posted from another site', async () => {
    const browser = new TestBrowser(app, config.publicUrl);
    const { page } = await openAuthorization(browser);
    const action = /action="([^"]+)"/.exec(page.body)?.[1] ?? '';
    const response = await browser.request(action, { form: { email: 'a@b.co', password: 'x' }, headers: { origin: 'https://evil.example' } });
    expect(response.status).toBe(403);
  });

  it('answers an unknown or expired interaction with a page, not a crash', async () => {
    const browser = new TestBrowser(app, config.publicUrl);
    const response = await browser.request('/oidc/interaction/does-not-exist');
    expect(response.status).toBe(400);
    expect(response.body).toContain('This sign-in has expired');
  });
});

describe('authorization request checks', () => {
  it('rejects a request without code_challenge', async () => {
    const browser = new TestBrowser(app, config.publicUrl);
    const response = await browser.request(authorizationUrl(config));
    const location = new URL(String(response.headers.location));
    expect(location.href.startsWith(redirectUri(config))).toBe(true);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('code')).toBeNull();
  });

  it('rejects the plain PKCE method', async () => {
    const browser = new TestBrowser(app, config.publicUrl);
    const response = await browser.request(authorizationUrl(config, { extra: { code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' } }));
    expect(new URL(String(response.headers.location)).searchParams.get('error')).toBe('invalid_request');
  });

  it('rejects a wrong code_verifier', async () => {
    const browser = new TestBrowser(app, config.publicUrl);
    const { challenge } = createPkce();
    const page = await browser.follow(authorizationUrl(config, { challenge, prompt: 'create' }));
    const done = await browser.submitForm(
      page,
      { email: uniqueEmail(), password: 'Violet-Harbor-42-kiln', display_name: 'V' },
      { stopAt: redirectUri(config) },
    );
    const tokens = await exchangeCode(browser, config, done.url, createPkce().verifier);
    expect(tokens.status).toBe(400);
    expect(tokens.body.error).toBe('invalid_grant');
  });

  it('accepts resource = the API audience and rejects other resources', async () => {
    const browser = new TestBrowser(app, config.publicUrl);
    await signInThroughProvider(app, config, { email: uniqueEmail(), password: 'Violet-Harbor-42-kiln', displayName: 'R' }, browser);
    const { verifier, challenge } = createPkce();
    const page = await browser.follow(authorizationUrl(config, { challenge, resource: config.oidc.audience }), { stopAt: redirectUri(config) });
    const code = new URL(page.url).searchParams.get('code') ?? '';
    const tokens = await requestTokens(browser, config, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri(config),
      code_verifier: verifier,
      resource: config.oidc.audience,
    });
    expect(tokens.status).toBe(200);
    expect((await verifyAccessToken(tokens.body.access_token)).payload.aud).toBe(config.oidc.audience);

    const other = await browser.request(authorizationUrl(config, { challenge, resource: 'https://elsewhere.example/api' }));
    expect(new URL(String(other.headers.location)).searchParams.get('error')).toBe('invalid_target');
  });
});

describe('tokens after sign-in', () => {
  it('refreshes, rotating the refresh token', async () => {
    const browser = new TestBrowser(app, config.publicUrl);
    const first = await signInThroughProvider(app, config, { email: uniqueEmail(), password: 'Violet-Harbor-42-kiln', displayName: 'Refresher' }, browser);
    const refreshed = await requestTokens(browser, config, { grant_type: 'refresh_token', refresh_token: first.refresh_token ?? '' });
    expect(refreshed.status).toBe(200);
    const { payload } = await verifyAccessToken(refreshed.body.access_token);
    expect(payload.sub).toBe(decodeJwt(first.access_token).sub);
    expect(payload.email).toBeTruthy();
    expect(refreshed.body.refresh_token).toBeTruthy();
    expect(refreshed.body.refresh_token).not.toBe(first.refresh_token);

    // Like oidc-client-ts's silent renew: the scope of the last token response plus the resource.
    const again = await requestTokens(browser, config, {
      grant_type: 'refresh_token',
      refresh_token: refreshed.body.refresh_token ?? '',
      scope: refreshed.body.scope ?? '',
      resource: config.oidc.audience,
    });
    expect(again.status).toBe(200);
    expect((await verifyAccessToken(again.body.access_token)).payload.aud).toBe(config.oidc.audience);

    // Stored hashed: neither a row id nor a payload holds a refresh token that was handed out.
    const stored = await db.query<{ id: string; payload: unknown }>("SELECT id, payload FROM oidc_payloads WHERE model = 'RefreshToken'");
    expect(stored.rows.length).toBeGreaterThan(0);
    const dump = JSON.stringify(stored.rows);
    for (const token of [first.refresh_token, refreshed.body.refresh_token, again.body.refresh_token]) expect(dump).not.toContain(token);

    // A refresh token used twice is a stolen one: oidc-provider then revokes the whole grant.
    const replayed = await requestTokens(browser, config, { grant_type: 'refresh_token', refresh_token: first.refresh_token ?? '' });
    expect(replayed.body.error).toBe('invalid_grant');
  });

  it('shares state between processes on one database', async () => {
    const browser = new TestBrowser(app, config.publicUrl);
    const tokens = await signInThroughProvider(app, config, { email: uniqueEmail(), password: 'Violet-Harbor-42-kiln', displayName: 'Shared' }, browser);
    const other = await mountApp(db);
    try {
      const otherBrowser = new TestBrowser(other.app, config.publicUrl);
      const refreshed = await requestTokens(otherBrowser, config, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '' });
      expect(refreshed.status).toBe(200);
    } finally {
      await other.app.close();
    }
  });

  it('hands real socket requests and their bodies to the provider', async () => {
    const tokens = await signInThroughProvider(app, config, { email: uniqueEmail(), password: 'Violet-Harbor-42-kiln', displayName: 'Socket' });
    const server = Fastify({ logger: false, trustProxy: true });
    await mountEmbeddedOidc(server, { config, db, userAccounts });
    const address = await server.listen({ port: 0, host: '127.0.0.1' });
    try {
      const discovery = await fetch(`${address}/oidc/.well-known/openid-configuration`);
      expect(((await discovery.json()) as { token_endpoint: string }).token_endpoint).toBe(`${PUBLIC_URL}/oidc/token`);
      const response = await fetch(`${address}/oidc/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '', client_id: config.oidc.clientId }),
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { access_token: string };
      expect((await verifyAccessToken(body.access_token)).payload.name).toBe('Socket');
    } finally {
      await server.close();
    }
  });

  it('answers userinfo for the JWT access token', async () => {
    const email = uniqueEmail();
    const browser = new TestBrowser(app, config.publicUrl);
    const tokens = await signInThroughProvider(app, config, { email, password: 'Violet-Harbor-42-kiln', displayName: 'Info' }, browser);
    const response = await browser.request(`${config.oidc.issuer}/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ sub: decodeJwt(tokens.access_token).sub, email, email_verified: false, name: 'Info' });

    const forged = await browser.request(`${config.oidc.issuer}/me`, { headers: { authorization: `Bearer ${tokens.id_token}` } });
    expect(forged.status).toBe(401);
  });

  it('revokes a refresh token at the revocation endpoint', async () => {
    const browser = new TestBrowser(app, config.publicUrl);
    const tokens = await signInThroughProvider(app, config, { email: uniqueEmail(), password: 'Violet-Harbor-42-kiln', displayName: 'Revoked' }, browser);
    const revoked = await browser.request(`${config.oidc.issuer}/token/revocation`, {
      form: { client_id: config.oidc.clientId, token: tokens.refresh_token ?? '', token_type_hint: 'refresh_token' },
    });
    expect(revoked.status).toBe(200);
    const refreshed = await requestTokens(browser, config, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '' });
    expect(refreshed.body.error).toBe('invalid_grant');
  });

  it('revokeAccountSessions ends sessions and makes refresh tokens fail', async () => {
    const browser = new TestBrowser(app, config.publicUrl);
    const tokens = await signInThroughProvider(app, config, { email: uniqueEmail(), password: 'Violet-Harbor-42-kiln', displayName: 'Gone' }, browser);
    const sub = String(decodeJwt(tokens.access_token).sub);

    await oidc.revokeAccountSessions(sub);

    const refreshed = await requestTokens(browser, config, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '' });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe('invalid_grant');
    const { page } = await openAuthorization(browser);
    expect(page.url).toContain('/oidc/interaction/');
    expect(page.body).toContain('>Sign in</button>');
    const { rows } = await db.query('SELECT model FROM oidc_payloads WHERE account_id = $1', [sub]);
    expect(rows).toEqual([]);
  });

  it('signs out through the end-session endpoint back to the app', async () => {
    const browser = new TestBrowser(app, config.publicUrl);
    const tokens = await signInThroughProvider(app, config, { email: uniqueEmail(), password: 'Violet-Harbor-42-kiln', displayName: 'Leaver' }, browser);
    const query = new URLSearchParams({ id_token_hint: tokens.id_token, post_logout_redirect_uri: `${config.publicUrl}/` });
    const confirm = await browser.request(`${config.oidc.issuer}/session/end?${query}`);
    expect(confirm.status).toBe(200);
    expect(confirm.body).toContain('>Sign out</button>');
    expect(confirm.body).toContain('document.forms[0].submit()');

    const done = await browser.submitForm(confirm, {}, { stopAt: config.publicUrl });
    expect(done.url).toBe(`${config.publicUrl}/`);
    const { page } = await openAuthorization(browser);
    expect(page.body).toContain('>Sign in</button>');
    const refreshed = await requestTokens(browser, config, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '' });
    expect(refreshed.body.error).toBe('invalid_grant');
  });
});
