// Authentication for /api: the embedded OIDC provider (when no external issuer is configured),
// bearer-token verification, and the request.user / app.authenticate decorations.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import { AppError } from '../errors.ts';
import { type EmbeddedOidc, mountEmbeddedOidc } from './oidc/index.ts';
import { createTokenVerifier, type TokenVerifier } from './token-verifier.ts';
import { findOrCreateUser, type UserRow } from './users-service.ts';

export interface AuthContext {
  user: UserRow;
  /** The OIDC subject the request was authenticated as. */
  subject: string;
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
    embeddedOidc: EmbeddedOidc | null;
  }
}

export function readBearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

async function authPlugin(app: FastifyInstance, { config, db }: { config: Config; db: Database }) {
  const embedded = config.oidc.embedded ? await mountEmbeddedOidc(app, { config, db }) : null;
  const verifyToken: TokenVerifier = createTokenVerifier({
    issuer: config.oidc.issuer,
    audience: config.oidc.audience,
    ...(embedded ? { jwks: embedded.jwks } : {}),
  });

  const resolve = async (request: FastifyRequest, token: string): Promise<AuthContext> => {
    const claims = await verifyToken(token);
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
      config.signupCreditsCents,
    );
    if (!user.is_active) throw new AppError('forbidden', 'This account is inactive');
    request.auth = { user, subject: claims.sub };
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
}

export const registerAuth = fp(authPlugin, { name: 'tollbooth-auth' });

/** The signed-in user of a request that passed app.authenticate. */
export function requireAuth(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new AppError('unauthorized', 'Authentication credentials were not provided');
  return request.auth;
}
