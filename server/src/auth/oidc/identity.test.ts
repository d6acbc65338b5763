// The embedded provider seen by a standard client (openid-client, unmodified) and the API behind
// it: DPoP is not offered, so a DPoP-bound flow is never half-accepted; and after sign-out or
// revocation the API refuses the session's access tokens (at once in the process that signed out,
// within GRANT_CHECK_MAX_AGE_MS in any other).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeJwt } from 'jose';
import * as client from 'openid-client';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type App, buildApp } from '../../app.ts';
import { type Config, loadConfig } from '../../platform/config.ts';
import { createTestDatabase, type TestDatabase } from '../../test-support/database.ts';
import { redirectUri, TestBrowser } from '../../test-support/oidc-browser.ts';
import { GRANT_CHECK_MAX_AGE_MS } from './grant-check.ts';

let database: TestDatabase;
let config: Config;
let app: App;
let other: App;

beforeAll(async () => {
  database = await createTestDatabase();
  config = loadConfig({
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'tollbooth-identity-')),
    SECRET_KEY: 'e'.repeat(64),
    PUBLIC_URL: 'http://127.0.0.1:4014',
    SIGNUP_LIMIT_PER_ADDRESS_PER_HOUR: '1000',
    LOG_LEVEL: 'silent',
  });
  // Two processes on one database, as in production behind a load balancer.
  [app, other] = await Promise.all([buildApp({ config, db: database.db, logger: false }), buildApp({ config, db: database.db, logger: false })]);
  await Promise.all([app.ready(), other.ready()]);
}, 180_000);
afterAll(async () => {
  vi.useRealTimers();
  await Promise.all([app?.close(), other?.close()]);
  await database?.cleanup();
});

/** openid-client's fetch, answered by the app in-process (no port): same URLs, same bytes. */
const fetchThrough =
  (target: App): client.CustomFetch =>
  async (url, options) => {
    const request = new URL(url);
    const headers: Record<string, string> = { host: request.host };
    new Headers(options.headers as HeadersInit).forEach((value, name) => {
      headers[name] = value;
    });
    const body = options.body;
    const response = await target.inject({
      method: options.method as 'GET' | 'POST',
      url: `${request.pathname}${request.search}`,
      headers,
      ...(body === undefined || body === null ? {} : { payload: body.toString() }),
    });
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : String(value));
    }
    const empty = response.statusCode === 204 || response.statusCode === 304;
    return new Response(empty ? null : new Uint8Array(response.rawPayload), { status: response.statusCode, headers: responseHeaders });
  };

async function discover(target: App = app) {
  const found = await client.discovery(new URL(config.oidc.issuer), config.oidc.clientId, undefined, client.None(), {
    execute: [client.allowInsecureRequests],
    [client.customFetch]: fetchThrough(target),
  });
  found[client.customFetch] = fetchThrough(target);
  return found;
}

let accounts = 0;

/** Signs up through the provider's pages and redeems the code with openid-client (optionally with DPoP). */
async function signUp(openid: client.Configuration, options: { DPoP?: client.DPoPHandle } = {}) {
  const browser = new TestBrowser(app, config.publicUrl);
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const authorize = client.buildAuthorizationUrl(openid, {
    redirect_uri: redirectUri(config),
    scope: 'openid profile email offline_access',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    prompt: 'create',
  });
  const stopAt = redirectUri(config);
  accounts += 1;
  const page = await browser.follow(authorize.href, { stopAt });
  const done = await browser.submitForm(
    page,
    { email: `identity${accounts}-${Date.now()}@example.com`, password: 'Amber-Lantern-58-quill', display_name: `Identity ${accounts}` },
    { stopAt },
  );
  expect(done.url.startsWith(stopAt)).toBe(true);
  const tokens = await client.authorizationCodeGrant(openid, new URL(done.url), { pkceCodeVerifier: verifier, expectedState: state }, undefined, options);
  return { tokens, browser };
}

const api = (target: App, accessToken: string, scheme = 'Bearer') =>
  target.inject({ method: 'GET', url: '/api/keys/', headers: { authorization: `${scheme} ${accessToken}` } });

describe('DPoP', () => {
  it('is not advertised in discovery', async () => {
    const metadata = (await discover()).serverMetadata();
    expect(metadata.token_endpoint).toBe(`${config.oidc.issuer}/token`);
    expect(metadata.dpop_signing_alg_values_supported).toBeUndefined();
    const raw = (await app.inject({ url: '/oidc/.well-known/openid-configuration' })).json();
    expect(Object.keys(raw).filter((key) => key.toLowerCase().includes('dpop'))).toEqual([]);
  });

  it('is never half-accepted: a DPoP flow gets an unbound bearer token, and the API takes no DPoP scheme', async () => {
    const openid = await discover();
    const dpop = client.getDPoPHandle(openid, await client.randomDPoPKeyPair());
    // The token request carries a DPoP proof; the provider ignores it and binds nothing.
    const { tokens } = await signUp(openid, { DPoP: dpop });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    const claims = decodeJwt(tokens.access_token);
    expect(claims.cnf).toBeUndefined();
    // Sent the DPoP way (Authorization: DPoP + proof), the API refuses it: it checks no proofs.
    const withProof = client.fetchProtectedResource(openid, tokens.access_token, new URL(`${config.publicUrl}/api/keys/`), 'GET', undefined, undefined, {
      DPoP: dpop,
    });
    await expect(withProof).rejects.toBeInstanceOf(client.WWWAuthenticateChallengeError);
    await expect(withProof).rejects.toMatchObject({ status: 401 });
    // As the plain bearer token it is, it works.
    expect((await api(app, tokens.access_token)).statusCode).toBe(200);
  });
});

describe('sign-out and revocation', () => {
  // Test files share a worker (isolate: false): a failure must not leave Date faked for the next file.
  afterEach(() => {
    vi.useRealTimers();
  });

  it('stops the access token at once after POST /api/auth/logout, and in another process within the cache age', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const openid = await discover();
    const { tokens } = await signUp(openid);
    expect((await api(app, tokens.access_token)).statusCode).toBe(200);
    expect((await api(other, tokens.access_token)).statusCode).toBe(200);

    const logout = await app.inject({ method: 'POST', url: '/api/auth/logout/', headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(logout.statusCode).toBe(200);
    const refused = await api(app, tokens.access_token);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ code: 'unauthorized' });

    // The other process trusted its last answer for at most the cache age (well under a minute).
    expect(GRANT_CHECK_MAX_AGE_MS).toBeLessThanOrEqual(60_000);
    vi.setSystemTime(Date.now() + GRANT_CHECK_MAX_AGE_MS + 1000);
    expect((await api(other, tokens.access_token)).statusCode).toBe(401);
    vi.useRealTimers();

    await expect(client.refreshTokenGrant(openid, tokens.refresh_token ?? '')).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('stops the access token after sign-out at the end-session endpoint', async () => {
    const openid = await discover();
    const { tokens, browser } = await signUp(openid);
    expect((await api(app, tokens.access_token)).statusCode).toBe(200);
    const endSession = client.buildEndSessionUrl(openid, { id_token_hint: tokens.id_token ?? '', post_logout_redirect_uri: `${config.publicUrl}/` });
    const confirm = await browser.request(endSession.href);
    expect(confirm.status).toBe(200);
    const done = await browser.submitForm(confirm, {}, { stopAt: config.publicUrl });
    expect(done.url).toBe(`${config.publicUrl}/`);
    expect((await api(app, tokens.access_token)).statusCode).toBe(401);
  });

  it('stops the access token once it (or its refresh token) is revoked', async () => {
    const openid = await discover();
    const first = (await signUp(openid)).tokens;
    expect((await api(app, first.access_token)).statusCode).toBe(200);
    await client.tokenRevocation(openid, first.access_token, { token_type_hint: 'access_token' });
    expect((await api(app, first.access_token)).statusCode).toBe(401);
    await expect(client.refreshTokenGrant(openid, first.refresh_token ?? '')).rejects.toMatchObject({ error: 'invalid_grant' });

    const second = (await signUp(openid)).tokens;
    expect((await api(app, second.access_token)).statusCode).toBe(200);
    await client.tokenRevocation(openid, second.refresh_token ?? '', { token_type_hint: 'refresh_token' });
    expect((await api(app, second.access_token)).statusCode).toBe(401);
  });

  it('leaves other sign-ins working and refreshes to a token the API accepts', async () => {
    const openid = await discover();
    const { tokens } = await signUp(openid);
    const refreshed = await client.refreshTokenGrant(openid, tokens.refresh_token ?? '');
    expect((await api(app, refreshed.access_token)).statusCode).toBe(200);
    expect((await api(other, refreshed.access_token)).statusCode).toBe(200);
    expect(decodeJwt(refreshed.access_token).grant_id).toBe(decodeJwt(tokens.access_token).grant_id);
  });
});
