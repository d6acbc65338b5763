// Verifies bearer JWTs from the configured OpenID Connect issuer. The embedded provider hands its
// public keys over directly; an external issuer's keys come from its discovery document's jwks_uri
// through jose's remote key set with the spec's timeout, cooldown and cache age.
import { createLocalJWKSet, createRemoteJWKSet, errors, type JSONWebKeySet, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { AppError } from '../platform/errors.ts';

export const JWKS_TIMEOUT_MS = 5000;
export const JWKS_COOLDOWN_MS = 30_000;
export const JWKS_CACHE_MAX_AGE_MS = 600_000;
export const CLOCK_TOLERANCE_SECONDS = 300;

export type TokenVerifier = (token: string) => Promise<JWTPayload & { sub: string }>;

export function createTokenVerifier(options: { issuer: string; audience: string; jwks?: JSONWebKeySet }): TokenVerifier {
  let keys: JWTVerifyGetKey | null = options.jwks ? createLocalJWKSet(options.jwks) : null;
  let discovering: Promise<JWTVerifyGetKey> | null = null;

  const discoverKeys = async (): Promise<JWTVerifyGetKey> => {
    const response = await fetch(`${options.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(JWKS_TIMEOUT_MS) });
    if (!response.ok) throw new Error(`OIDC discovery at ${options.issuer} answered ${response.status}`);
    const discovery = (await response.json()) as { jwks_uri?: string };
    if (!discovery.jwks_uri) throw new Error(`OIDC discovery at ${options.issuer} has no jwks_uri`);
    return createRemoteJWKSet(new URL(discovery.jwks_uri), {
      timeoutDuration: JWKS_TIMEOUT_MS,
      cooldownDuration: JWKS_COOLDOWN_MS,
      cacheMaxAge: JWKS_CACHE_MAX_AGE_MS,
    });
  };

  const getKeys = async (): Promise<JWTVerifyGetKey> => {
    if (keys) return keys;
    discovering ??= discoverKeys().then(
      (found) => {
        keys = found;
        return found;
      },
      (error: unknown) => {
        discovering = null; // try again on the next request
        throw error;
      },
    );
    return discovering;
  };

  return async (token) => {
    let getKey: JWTVerifyGetKey;
    try {
      getKey = await getKeys();
    } catch (error) {
      throw new AppError('service_unavailable', `Identity provider unavailable: ${(error as Error).message}`);
    }
    try {
      const { payload } = await jwtVerify(token, getKey, ACCESS_TOKEN_RULES(options));
      return checkAccessTokenClaims(payload);
    } catch (error) {
      if (error instanceof AppError) throw error;
      if (error instanceof errors.JWTExpired) throw new AppError('unauthorized', 'Access token expired');
      if (error instanceof errors.JWKSTimeout) throw new AppError('service_unavailable', 'Identity provider key set timed out');
      if (error instanceof errors.JOSEError) throw new AppError('unauthorized', 'Invalid access token');
      throw error;
    }
  };
}

/**
 * RFC 9068 access tokens only: typ at+jwt (an ID token or any other JWT of the issuer is not an
 * access token), an expiry is required; exp and nbf get the spec's clock tolerance.
 */
const ACCESS_TOKEN_RULES = (options: { issuer: string; audience: string }) => ({
  issuer: options.issuer,
  audience: options.audience,
  clockTolerance: CLOCK_TOLERANCE_SECONDS,
  typ: 'at+jwt',
  requiredClaims: ['exp'],
});

/** Claims jose leaves to us: a subject, and an issue time that is not in the future (beyond the tolerance). */
export function checkAccessTokenClaims(payload: JWTPayload, nowSeconds = Math.floor(Date.now() / 1000)): JWTPayload & { sub: string } {
  if (typeof payload.sub !== 'string' || payload.sub === '') throw new AppError('unauthorized', 'Token has no subject');
  if (typeof payload.iat === 'number' && payload.iat > nowSeconds + CLOCK_TOLERANCE_SECONDS) throw new AppError('unauthorized', 'Token issued in the future');
  // A sender-constrained token (DPoP cnf.jkt, mTLS cnf.x5t#S256) is only valid with its proof, which
  // this API does not check: accepting it as a plain bearer token would defeat the binding.
  if (payload.cnf !== undefined) throw new AppError('unauthorized', 'Sender-constrained (DPoP or mTLS) tokens are not supported; use a bearer token');
  return payload as JWTPayload & { sub: string };
}
