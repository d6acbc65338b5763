// Embedded OpenID Connect provider mounted at /oidc when no external issuer is configured.
// (Placeholder signature; the implementation lands with the embedded provider.)
import type { FastifyInstance } from 'fastify';
import type { JSONWebKeySet } from 'jose';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/client.ts';

export interface EmbeddedOidc {
  /** Public signing keys, used by the API to verify access tokens without an HTTP round trip. */
  jwks: JSONWebKeySet;
  /** Ends every session and revokes every grant (refresh tokens) of an account. */
  revokeAccountSessions(accountId: string): Promise<void>;
}

export async function mountEmbeddedOidc(_app: FastifyInstance, _deps: { config: Config; db: Database }): Promise<EmbeddedOidc> {
  throw new Error('embedded OIDC provider not available yet');
}
