// The oidc-provider instance and its configuration: one first-party public client (the SPA),
// local accounts, JWT access tokens for the API, and our own pages for errors and sign-out.
import type { EventEmitter } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from 'jose';
import type { Middleware } from 'koa';
import Provider, { type Adapter, type ClientMetadata, type Configuration, errors, interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';
import { deriveKey } from '../../crypto/secrets.ts';
import { etagMatches, weakEtag } from '../../http/cache-validators.ts';
import type { Config } from '../../platform/config.ts';
import { type AccountStore, accountClaims } from './accounts.ts';
import type { GrantCheck } from './grant-check.ts';
import { AUTO_SUBMIT_SCRIPT, messageCard, renderPage, signOutCard } from './pages.ts';
import type { SigningKeys } from './signing-keys.ts';

/** Path under which the provider is served; the issuer is `${PUBLIC_URL}${OIDC_MOUNT_PATH}`. */
export const OIDC_MOUNT_PATH = '/oidc';

/** OpenID scopes the first-party client is granted without a consent screen. */
const FIRST_PARTY_SCOPES = 'openid profile email offline_access';
/** Scopes the API resource server accepts; access tokens for it carry those that were requested. */
const API_SCOPES = 'openid profile email';
const USERINFO_PATH = '/me';

const HOUR = 60 * 60;
const DAY = 24 * HOUR;

export interface ProviderDependencies {
  config: Config;
  accounts: AccountStore;
  signingKeys: SigningKeys;
  adapter: (model: string) => Adapter;
  log: FastifyBaseLogger;
  /** Whether an access token's grant still exists (sign-out and revocation destroy it). */
  grants: GrantCheck;
}

export function spaClientMetadata(config: Config): ClientMetadata {
  return {
    client_id: config.oidc.clientId,
    client_name: config.productName,
    application_type: 'web',
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    redirect_uris: [`${config.publicUrl}/auth/callback`],
    post_logout_redirect_uris: [`${config.publicUrl}/`, `${config.publicUrl}/login`],
  };
}

export function createProvider({ config, accounts, signingKeys, adapter, log, grants }: ProviderDependencies): Provider {
  const { audience, clientId, issuer } = config.oidc;
  const publicOrigin = new URL(config.publicUrl).origin;
  const homeUrl = `${config.publicUrl}/`;
  const page = (ctx: KoaContextWithOIDC, title: string, body: string, script?: string) => {
    ctx.type = 'html';
    ctx.set('cache-control', 'no-store');
    ctx.body = renderPage({ title, productName: config.productName, homeUrl, body, ...(script ? { script } : {}) });
  };

  // Sign-up is `prompt=create`: a requestable prompt listed before login, so an authorization
  // request asking for it opens the sign-up form and is not rejected as an unsupported prompt.
  const policy = interactionPolicy.base();
  policy.add(new interactionPolicy.Prompt({ name: 'create', requestable: true }), 0);

  const configuration: Configuration = {
    adapter,
    clients: [spaClientMetadata(config)],
    jwks: signingKeys.privateJwks as Configuration['jwks'],
    cookies: {
      names: { session: 'tb_oidc_session', interaction: 'tb_oidc_interaction', resume: 'tb_oidc_resume' },
      long: { httpOnly: true, sameSite: 'lax' },
      short: { httpOnly: true, sameSite: 'lax' },
      // Derived, not random: every process must verify the cookies the others signed.
      keys: [deriveKey(config.secretKey, 'oidc-cookies').toString('hex')],
    },
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name', 'given_name', 'family_name'],
    },
    scopes: ['openid', 'offline_access', 'profile', 'email'],
    // Advertise `create` (OpenID Connect Prompt Create 1.0); oidc-provider does not list prompts.
    discovery: { prompt_values_supported: ['none', ...policy.filter((prompt) => prompt.requestable).map((prompt) => prompt.name)] },
    responseTypes: ['code'],
    pkce: { required: () => true },
    // Each API access token names its grant, so the API can refuse it once sign-out or revocation
    // destroyed the grant (grant-check.ts); a JWT alone would stay valid until it expires.
    formats: {
      customizers: {
        jwt(_ctx, token, parts) {
          if (token.kind === 'AccessToken' && token.grantId) parts.payload.grant_id = token.grantId;
          return parts;
        },
      },
    },
    features: {
      devInteractions: { enabled: false },
      // Off, and so not advertised: the API and userinfo do not verify DPoP proofs, and a bound
      // token accepted without its proof would be worse than a plain bearer token (decision 0010).
      dPoP: { enabled: false },
      // oidc-provider 8 refuses to revoke another client's token by itself ("this token does not belong to you").
      revocation: { enabled: true },
      userinfo: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource(ctx, form) {
          // A sign-out the app itself asked for (its client id or its id_token_hint was given and
          // checked) needs no confirmation click; anything else shows the button.
          const fromApp = ctx.oidc.client?.clientId === clientId;
          page(ctx, 'Sign out', signOutCard(form, homeUrl), fromApp ? AUTO_SUBMIT_SCRIPT : undefined);
        },
        postLogoutSuccessSource(ctx) {
          page(
            ctx,
            'Signed out',
            messageCard('You are signed out', 'You have been signed out of your account.', { href: `${config.publicUrl}/login`, label: 'Sign in again' }),
          );
        },
      },
      resourceIndicators: {
        enabled: true,
        // Clients that send no `resource` still get a JWT access token for the API.
        defaultResource: (_ctx, _client, oneOf) => (oneOf ? (oneOf.includes(audience) ? audience : oneOf) : audience),
        useGrantedResource: () => true,
        getResourceServerInfo(_ctx, resourceIndicator) {
          if (resourceIndicator !== audience) throw new errors.InvalidTarget();
          return { scope: API_SCOPES, audience, accessTokenFormat: 'jwt', accessTokenTTL: HOUR, jwt: { sign: { alg: 'RS256' } } };
        },
      },
    },
    // The SPA asks for offline_access without prompt=consent, which oidc-provider strips from the
    // request; issue its refresh tokens anyway. They still end with the session (expiresWithSession).
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    async loadExistingGrant(ctx) {
      const { oidc } = ctx;
      const client = oidc.client;
      const accountId = oidc.account?.accountId ?? oidc.session?.accountId;
      if (!client || !accountId) return undefined;
      const grantId = oidc.result?.consent?.grantId ?? oidc.session?.grantIdFor(client.clientId);
      let grant = grantId ? await oidc.provider.Grant.find(grantId) : undefined;
      if (grant && grant.accountId !== accountId) grant = undefined;
      if (client.clientId !== clientId) return grant;
      // First-party client: consent is implied, so grant what it may ask for and never prompt.
      grant ??= new oidc.provider.Grant({ clientId: client.clientId, accountId });
      grant.addOIDCScope(FIRST_PARTY_SCOPES);
      grant.addResourceScope(audience, API_SCOPES);
      await grant.save();
      return grant;
    },
    // The API creates its user row from the access token alone, so it carries email and name.
    async extraTokenClaims(_ctx, token) {
      const accountId = 'accountId' in token ? token.accountId : undefined;
      if (!accountId) return undefined;
      const account = await accounts.findById(accountId);
      return account ? { email: account.email, name: account.displayName, email_verified: account.emailVerified } : undefined;
    },
    async findAccount(_ctx, sub) {
      const account = await accounts.findById(sub);
      if (!account) return undefined;
      return { accountId: account.id, claims: () => accountClaims(account) };
    },
    interactions: {
      policy,
      url: (_ctx, interaction) => `${OIDC_MOUNT_PATH}/interaction/${interaction.uid}`,
    },
    renderError(ctx, out) {
      const description = out.error_description ?? out.error;
      page(
        ctx,
        'Sign-in problem',
        messageCard('Something went wrong', `${description} (${out.error})`, { href: `${config.publicUrl}/login`, label: 'Back to sign in' }),
      );
    },
    clientBasedCORS: (_ctx, origin) => origin === publicOrigin,
    ttl: {
      AccessToken: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? HOUR,
      AuthorizationCode: 60,
      IdToken: HOUR,
      Interaction: HOUR,
      Session: 14 * DAY,
      Grant: 14 * DAY,
      RefreshToken(ctx, token, client) {
        // Rotated refresh tokens of a browser client keep the original expiry (no endless renewal).
        const rotated = ctx?.oidc?.entities.RotatedRefreshToken;
        if (rotated && client.applicationType === 'web' && client.clientAuthMethod === 'none' && !token.isSenderConstrained()) {
          return rotated.remainingTTL;
        }
        return 14 * DAY;
      },
    },
  };

  const provider = new Provider(issuer, configuration);
  // The mount (index.ts) replaces Host and X-Forwarded-Proto with PUBLIC_URL's before the
  // provider sees a request, so URLs and cookie flags follow PUBLIC_URL and no client header.
  provider.proxy = true;
  provider.use(cacheableJwks);
  provider.use(jwtUserinfo({ issuer, audience, jwks: signingKeys.publicJwks, accounts, grants }));
  provider.use(jwtRevocation({ issuer, jwks: signingKeys.publicJwks, grants }));

  const rejected = (event: string) => (_ctx: KoaContextWithOIDC, error: errors.OIDCProviderError) =>
    log.info({ event, error: error.error, description: error.error_description }, 'oidc request rejected');
  provider.on('authorization.error', rejected('authorization.error'));
  provider.on('grant.error', rejected('grant.error'));
  provider.on('end_session.error', rejected('end_session.error'));
  provider.on('userinfo.error', rejected('userinfo.error'));
  provider.on('revocation.error', rejected('revocation.error'));
  provider.on('server_error', (_ctx, error) => log.error({ err: error }, 'oidc provider error'));
  // Koa's own 'error' event (missing from the typings): Koa prints to stderr unless someone listens.
  (provider as unknown as EventEmitter).on('error', (error: Error) => log.error({ err: error }, 'oidc provider error'));
  return provider;
}

/**
 * The JWKS changes only when a signing key is added (signing-keys.ts): clients and resource servers
 * may keep it five minutes and revalidate with If-None-Match (304 without the keys). Five minutes,
 * not a day, so a rotated key reaches verifiers quickly.
 */
const cacheableJwks: Middleware = async (ctx, next) => {
  await next();
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return;
  if (ctx.status !== 200 || !ctx.path.endsWith('/jwks') || !ctx.body || typeof ctx.body !== 'object') return;
  const etag = weakEtag(JSON.stringify(ctx.body));
  ctx.set('ETag', etag);
  ctx.set('Cache-Control', 'public, max-age=300');
  if (etagMatches(ctx.get('if-none-match') || undefined, etag)) {
    ctx.status = 304;
    ctx.body = null;
  }
};

/**
 * oidc-provider cannot look up JWT access tokens (it does not store them), so its userinfo
 * endpoint would reject every access token it issues for the API. This middleware answers
 * userinfo for those tokens itself: it verifies the JWT with our own keys and returns the claims
 * the token's scopes allow. Opaque tokens fall through to oidc-provider.
 */
function jwtUserinfo(options: { issuer: string; audience: string; jwks: JSONWebKeySet; accounts: AccountStore; grants: GrantCheck }): Middleware {
  const keys = createLocalJWKSet(options.jwks);
  return async (ctx, next) => {
    if (ctx.path !== USERINFO_PATH || (ctx.method !== 'GET' && ctx.method !== 'POST')) return next();
    const token = /^Bearer\s+([\w-]+\.[\w-]+\.[\w-]+)\s*$/i.exec(ctx.get('authorization'))?.[1];
    if (!token) return next();

    ctx.set('cache-control', 'no-store');
    const reject = (status: number, error: string, description: string) => {
      ctx.status = status;
      ctx.set('www-authenticate', `Bearer realm="${options.issuer}", error="${error}", error_description="${description}"`);
      ctx.body = { error, error_description: description };
    };
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, keys, { issuer: options.issuer, audience: options.audience, typ: 'at+jwt' }));
    } catch {
      return reject(401, 'invalid_token', 'invalid token provided');
    }
    if (payload.cnf !== undefined) return reject(401, 'invalid_token', 'sender-constrained tokens are not supported');
    if (typeof payload.grant_id !== 'string' || !(await options.grants.isActive(payload.grant_id))) {
      return reject(401, 'invalid_token', 'access token revoked');
    }
    const scopes = new Set(typeof payload.scope === 'string' ? payload.scope.split(' ') : []);
    if (!scopes.has('openid')) return reject(403, 'insufficient_scope', 'access token missing openid scope');
    const account = typeof payload.sub === 'string' ? await options.accounts.findById(payload.sub) : null;
    if (!account) return reject(401, 'invalid_token', 'invalid token provided');

    const { sub, email, email_verified, name } = accountClaims(account);
    ctx.body = {
      sub,
      ...(scopes.has('email') ? { email, email_verified } : {}),
      ...(scopes.has('profile') ? { name } : {}),
    };
  };
}

/**
 * The revocation endpoint cannot find JWT access tokens either (they are not stored), so revoking
 * one would change nothing. After the provider answered, a revoked JWT access token of ours that
 * belongs to the requesting client has its grant revoked, as oidc-provider does for the tokens it
 * stores: the API then refuses it (and its refresh tokens stop working).
 */
function jwtRevocation(options: { issuer: string; jwks: JSONWebKeySet; grants: GrantCheck }): Middleware {
  const keys = createLocalJWKSet(options.jwks);
  return async (ctx, next) => {
    await next();
    if (ctx.path !== '/token/revocation' || ctx.method !== 'POST' || ctx.status !== 200) return;
    const { oidc } = ctx as unknown as KoaContextWithOIDC;
    const token = oidc?.params?.token;
    if (typeof token !== 'string' || !/^[\w-]+\.[\w-]+\.[\w-]+$/.test(token) || !oidc.client) return;
    try {
      // An expired token needs no revoking, so the usual expiry check may stand.
      const { payload } = await jwtVerify(token, keys, { issuer: options.issuer, typ: 'at+jwt' });
      if (payload.client_id === oidc.client.clientId && typeof payload.grant_id === 'string') await options.grants.revoke(payload.grant_id);
    } catch {
      // Not one of our access tokens: nothing to revoke (RFC 7009 answers 200 regardless).
    }
  };
}
