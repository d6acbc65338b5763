// A loopback OpenID Connect issuer for tests: serves a discovery document and a JWKS over real
// HTTP on 127.0.0.1, and signs access tokens with its own test keys. Tollbooth is pointed at it
// exactly as at an external issuer (OIDC_ISSUER), so the production verification path runs.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';

export interface TestIssuer {
  issuer: string;
  audience: string;
  /** Signs an access token; override any claim, the expiry or the key. */
  sign(
    claims: JWTPayload & { sub: string },
    options?: {
      expiresIn?: string | number | null;
      audience?: string;
      issuer?: string;
      foreignKey?: boolean;
      /** The JOSE typ header; RFC 9068 access tokens are at+jwt. */
      typ?: string;
      issuedAt?: number;
    },
  ): Promise<string>;
  close(): Promise<void>;
}

export async function startTestIssuer(audience = 'http://tollbooth.test/api'): Promise<TestIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const foreign = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  let issuer = '';
  const server: Server = createServer((request, response) => {
    const send = (body: unknown) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.url === '/.well-known/openid-configuration') return send({ issuer, jwks_uri: `${issuer}/jwks` });
    if (request.url === '/jwks') return send({ keys: [jwk] });
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    audience,
    async sign(claims, options = {}) {
      const key = options.foreignKey ? foreign.privateKey : privateKey;
      const jwt = new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: 'test-key', typ: options.typ ?? 'at+jwt' })
        .setIssuer(options.issuer ?? issuer)
        .setAudience(options.audience ?? audience)
        .setIssuedAt(options.issuedAt);
      if (options.expiresIn !== null) jwt.setExpirationTime(options.expiresIn ?? '1h');
      return jwt.sign(key);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
