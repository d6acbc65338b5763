// Test helper: a minimal browser over app.inject() (cookie jar, redirects, form posts) and the
// SPA's side of the authorization-code + PKCE flow, so tests can sign up or sign in through the
// embedded provider's real pages and get real tokens. Not used by the server itself.
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../platform/config.ts';

export interface BrowserResponse {
  status: number;
  url: string;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

interface StoredCookie {
  name: string;
  value: string;
  path: string;
}

export class TestBrowser {
  private readonly cookies = new Map<string, StoredCookie>();

  constructor(
    private readonly app: FastifyInstance,
    /** Origin the browser believes it talks to (PUBLIC_URL); sent as Host and Origin. */
    private readonly origin: string,
    /** Sent with every request, e.g. X-Forwarded-For to act as another client address. */
    private readonly defaultHeaders: Record<string, string> = {},
  ) {}

  /** One request, no redirects followed. `form` sends an urlencoded POST like an HTML form. */
  async request(
    url: string,
    options: { method?: 'GET' | 'POST'; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<BrowserResponse> {
    const target = new URL(url, this.origin);
    const method = options.method ?? (options.form ? 'POST' : 'GET');
    const headers: Record<string, string> = { host: target.host, ...this.defaultHeaders, ...options.headers };
    const cookie = this.cookieHeader(target.pathname);
    if (cookie) headers.cookie = cookie;
    let payload: string | undefined;
    if (options.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers.origin ??= target.origin;
      payload = new URLSearchParams(options.form).toString();
    }
    const response = await this.app.inject({ method, url: `${target.pathname}${target.search}`, headers, ...(payload !== undefined ? { payload } : {}) });
    this.storeCookies(response.headers['set-cookie']);
    return { status: response.statusCode, url: target.href, headers: response.headers, body: response.body };
  }

  /** Follows redirects (303/302 become GET) until a non-redirect or a Location starting with stopAt. */
  async follow(url: string, options: { method?: 'GET' | 'POST'; form?: Record<string, string>; stopAt?: string } = {}): Promise<BrowserResponse> {
    let response = await this.request(url, options);
    for (let hops = 0; hops < 10; hops += 1) {
      const location = response.headers.location;
      if (response.status < 300 || response.status >= 400 || typeof location !== 'string') return response;
      const next = new URL(location, response.url).href;
      if (options.stopAt && next.startsWith(options.stopAt)) return { ...response, url: next };
      response = await this.request(next);
    }
    throw new Error('too many redirects');
  }

  /** Posts the first POST form of an HTML page with the given fields (plus its hidden inputs). */
  async submitForm(page: BrowserResponse, fields: Record<string, string>, options: { stopAt?: string } = {}): Promise<BrowserResponse> {
    const form = /<form[^>]*method="post"[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/i.exec(page.body);
    if (!form?.[1]) throw new Error(`no form on page ${page.url}:\n${page.body}`);
    const hidden: Record<string, string> = {};
    for (const input of (form[2] ?? '').matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) {
      hidden[unescapeHtml(input[1] ?? '')] = unescapeHtml(input[2] ?? '');
    }
    return this.follow(new URL(unescapeHtml(form[1]), page.url).href, { form: { ...hidden, ...fields }, ...options });
  }

  private cookieHeader(path: string): string {
    return [...this.cookies.values()]
      .filter((cookie) => path === cookie.path || path.startsWith(cookie.path.endsWith('/') ? cookie.path : `${cookie.path}/`))
      .map((cookie) => `${cookie.name}=${cookie.value}`)
      .join('; ');
  }

  private storeCookies(header: string | string[] | number | undefined) {
    if (header === undefined || typeof header === 'number') return;
    for (const line of Array.isArray(header) ? header : [header]) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const separator = pair.indexOf('=');
      const name = pair.slice(0, separator);
      const value = pair.slice(separator + 1);
      const attribute = (key: string) => attributes.find((a) => a.toLowerCase().startsWith(`${key}=`))?.split('=')[1];
      const path = attribute('path') ?? '/';
      const expires = attribute('expires');
      const key = `${path} ${name}`;
      if (!value || (expires && new Date(expires).getTime() <= Date.now()) || attribute('max-age') === '0') this.cookies.delete(key);
      else this.cookies.set(key, { name, value, path });
    }
  }
}

function unescapeHtml(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

export function createPkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function redirectUri(config: Config) {
  return `${config.publicUrl}/auth/callback`;
}

/** The SPA's authorization request, as a URL on the provider. */
export function authorizationUrl(
  config: Config,
  params: { challenge?: string; state?: string; prompt?: string; scope?: string; resource?: string; extra?: Record<string, string> } = {},
): string {
  const query = new URLSearchParams({
    client_id: config.oidc.clientId,
    redirect_uri: redirectUri(config),
    response_type: 'code',
    scope: params.scope ?? 'openid profile email offline_access',
    state: params.state ?? randomBytes(8).toString('hex'),
    ...(params.challenge ? { code_challenge: params.challenge, code_challenge_method: 'S256' } : {}),
    ...(params.prompt ? { prompt: params.prompt } : {}),
    ...(params.resource ? { resource: params.resource } : {}),
    ...params.extra,
  });
  return `${config.oidc.issuer}/auth?${query}`;
}

export interface TokenResponse {
  access_token: string;
  id_token: string;
  refresh_token?: string;
  token_type: string;
  expires_in: number;
  scope?: string;
}

/** POSTs to the token endpoint like the SPA does (public client, no secret). */
export async function requestTokens(browser: TestBrowser, config: Config, form: Record<string, string>) {
  const response = await browser.request(`${config.oidc.issuer}/token`, { form: { client_id: config.oidc.clientId, ...form } });
  return { status: response.status, body: JSON.parse(response.body) as TokenResponse & { error?: string; error_description?: string } };
}

/** Exchanges the code of a callback URL for tokens. */
export async function exchangeCode(browser: TestBrowser, config: Config, callbackUrl: string, verifier: string) {
  const code = new URL(callbackUrl).searchParams.get('code');
  if (!code) throw new Error(`no code in ${callbackUrl}`);
  return requestTokens(browser, config, { grant_type: 'authorization_code', code, redirect_uri: redirectUri(config), code_verifier: verifier });
}

/**
 * Runs the whole browser flow: sign-up (prompt=create) when displayName is given, sign-in
 * otherwise; returns the token response. Throws with the page when a step does not go through.
 */
export async function signInThroughProvider(
  app: FastifyInstance,
  config: Config,
  account: { email: string; password: string; displayName?: string },
  browser = new TestBrowser(app, config.publicUrl),
): Promise<TokenResponse> {
  const { verifier, challenge } = createPkce();
  const stopAt = redirectUri(config);
  const page = await browser.follow(authorizationUrl(config, { challenge, ...(account.displayName ? { prompt: 'create' } : {}) }), { stopAt });
  const fields: Record<string, string> = { email: account.email, password: account.password };
  if (account.displayName) fields.display_name = account.displayName;
  const done = page.url.startsWith(stopAt) ? page : await browser.submitForm(page, fields, { stopAt });
  if (!done.url.startsWith(stopAt)) throw new Error(`sign-in did not reach the callback (${done.status} ${done.url}):\n${done.body}`);
  const tokens = await exchangeCode(browser, config, done.url, verifier);
  if (tokens.status !== 200) throw new Error(`token exchange failed: ${JSON.stringify(tokens.body)}`);
  return tokens.body;
}
