// Authentication for /api: the embedded OIDC provider (when no external issuer is configured),
// bearer-token verification, and the request.user / app.authenticate decorations.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Database } from '../db/client.ts';
import type { Config } from '../platform/config.ts';
import { AppError } from '../platform/errors.ts';
import { looksLikeApiKey, looksLikePublishableKey } from '../platform/key-formats.ts';
import type { EmbeddedOidc } from './oidc/index.ts';
import { createTokenVerifier, type TokenVerifier } from './token-verifier.ts';
import { findOrCreateUser, type UserAccounts, type UserRow } from './users-service.ts';

export interface AuthContext {
  user: UserRow;
  /** The OIDC subject of the user. */
  subject: string;
  /** Set when the request was authenticated with an API key rather than an access token. */
  apiKey: { id: string; monthlySpendLimitCents: number | null; maxPriceCents?: number | null; dailySpendLimitCents?: number | null } | null;
  /** The access token's email, lower-cased, when the token says it is verified (email_verified: true); else null. */
  verifiedEmail?: string | null;
}

/**
 * How authentication finds the live API key a raw key names, or null (malformed, unknown, revoked, or
 * its user inactive): the keys feature's service is one, given by app.ts, so authentication, which
 * every feature uses, uses none of them.
 */
export interface ApiKeyAuthenticator {
  authenticateApiKey(rawKey: string): Promise<{
    keyId: string;
    monthlySpendLimitCents: number | null;
    maxPriceCents: number | null;
    user: UserRow;
  } | null>;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
  }
  interface FastifyInstance {
    /** preHandler: 401 unless the request carries a valid bearer token. */
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    /** preHandler: sets request.auth when a valid bearer token is present, never rejects for its absence. */
    authenticateOptional: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    /** preHandler for paid calls: like authenticateOptional, but an API key (tb_…) is accepted too. */
    authenticateCaller: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    embeddedOidc: EmbeddedOidc | null;
  }
}

export function readBearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

async function authPlugin(
  app: FastifyInstance,
  { config, db, apiKeys, accounts }: { config: Config; db: Database; apiKeys: ApiKeyAuthenticator; accounts: UserAccounts },
) {
  // Loaded only when mounted: the provider and the password checker take ~0.6 s to import, which a
  // server with an external issuer (and every test of one) need not pay.
  const embedded = config.oidc.embedded ? await (await import('./oidc/index.ts')).mountEmbeddedOidc(app, { config, db, userAccounts: accounts }) : null;
  const verifyToken: TokenVerifier = createTokenVerifier({
    issuer: config.oidc.issuer,
    audience: config.oidc.audience,
    ...(embedded ? { jwks: embedded.jwks } : {}),
  });

  const resolve = async (request: FastifyRequest, token: string): Promise<AuthContext> => {
    const claims = await verifyToken(token);
    // The embedded provider's tokens name their grant; sign-out and revocation destroy it.
    if (embedded && (typeof claims.grant_id !== 'string' || !(await embedded.isGrantActive(claims.grant_id)))) {
      throw new AppError('unauthorized', 'Access token revoked: sign in again');
    }
    const str = (value: unknown) => (typeof value === 'string' && value ? value : undefined);
    const user = await findOrCreateUser(
      db,
      {
        issuer: config.oidc.issuer,
        subject: claims.sub,
        email: str(claims.email),
        name: str(claims.name),
        givenName: str(claims.given_name),
        familyName: str(claims.family_name),
        preferredUsername: str(claims.preferred_username) ?? str(claims.username),
      },
      signupCreditsFor(config, claims.email_verified === true),
      accounts,
    );
    if (!user.is_active) throw new AppError('forbidden', 'This account is inactive');
    const verifiedEmail = claims.email_verified === true ? (str(claims.email)?.toLowerCase() ?? null) : null;
    request.auth = { user, subject: claims.sub, apiKey: null, verifiedEmail };
    return request.auth;
  };

  const resolveApiKey = async (request: FastifyRequest, rawKey: string): Promise<AuthContext> => {
    const key = await apiKeys.authenticateApiKey(rawKey);
    if (!key?.user.is_active) throw new AppError('unauthorized', 'Invalid or revoked API key');
    request.auth = {
      user: key.user,
      subject: key.user.subject,
      apiKey: { id: key.keyId, monthlySpendLimitCents: key.monthlySpendLimitCents, maxPriceCents: key.maxPriceCents },
    };
    return request.auth;
  };

  app.decorate('embeddedOidc', embedded);
  app.decorateRequest('auth', null);
  app.decorate('authenticate', async (request: FastifyRequest) => {
    const token = readBearerToken(request);
    if (!token) throw new AppError('unauthorized', 'Authentication credentials were not provided');
    await resolve(request, token);
  });
  app.decorate('authenticateOptional', async (request: FastifyRequest) => {
    const token = readBearerToken(request);
    if (token) await resolve(request, token);
  });
  app.decorate('authenticateCaller', async (request: FastifyRequest) => {
    const token = readBearerToken(request);
    if (!token) return;
    // A publishable key is public: it pays only for the embed widget's calls (/api/embed/…), never here.
    if (looksLikePublishableKey(token))
      throw new AppError('unauthorized', 'Publishable keys (pk_…) call only from the embed widget; use a secret key (tb_…) here');
    if (looksLikeApiKey(token)) await resolveApiKey(request, token);
    else await resolve(request, token);
  });
}

export const registerAuth = fp(authPlugin, { name: 'tollbooth-auth' });

/** The signed-in user of a request that passed app.authenticate. */
export function requireAuth(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new AppError('unauthorized', 'Authentication credentials were not provided');
  return request.auth;
}

/** Sign-up credits for a new user: with mail configured, local accounts get them when their email is verified. */
export function signupCreditsFor(config: Config, emailVerified: boolean): number {
  const deferred = config.mail.smtpUrl !== null && config.oidc.embedded && !emailVerified;
  return deferred ? 0 : config.signupCreditsCents;
}
