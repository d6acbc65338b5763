// The session oidc-client-ts keeps in localStorage, read without loading oidc-client-ts (16 KiB
// gzip, fetched on demand): a returning user's page renders signed in, and its first API calls
// carry the token, while the identity client is still on its way. The identity client stays the
// authority: it restores the same session when it arrives and renews or drops it as before
// (docs/decisions/0020-web-delivery.md, "Update (issue 15, dashboard)").
import type { IdTokenClaims } from 'oidc-client-ts';
import type { OidcConfig } from './user-manager';

/** The fields of oidc-client-ts's stored User that the app reads before the identity client is loaded. */
export interface StoredSession {
  access_token: string;
  expires_at?: number;
  profile: IdTokenClaims;
}

/**
 * Where oidc-client-ts keeps the user: WebStorageStateStore's "oidc." prefix and UserManager's
 * `user:{authority}:{client_id}` key, with the issuer as authority (user-manager.ts).
 * stored-session.test.ts checks this against the library itself.
 */
export function storedSessionKey(oidc: Pick<OidcConfig, 'issuer' | 'client_id'>): string {
  return `oidc.user:${oidc.issuer}:${oidc.client_id}`;
}

/**
 * The stored session when it is there and its access token has not expired (oidc-client-ts's rule:
 * expired once `expires_at` is not after the current second); null otherwise, when the identity
 * client must decide (renew with the refresh token, or sign out).
 */
export function readStoredSession(oidc: Pick<OidcConfig, 'issuer' | 'client_id'>, now = Date.now()): StoredSession | null {
  let data: unknown;
  try {
    const text = window.localStorage.getItem(storedSessionKey(oidc));
    if (!text) return null;
    data = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof data !== 'object' || data === null) return null;
  const session = data as Partial<StoredSession>;
  if (typeof session.access_token !== 'string' || session.access_token === '') return null;
  if (typeof session.profile !== 'object' || session.profile === null) return null;
  if (session.expires_at !== undefined && (typeof session.expires_at !== 'number' || session.expires_at - Math.floor(now / 1000) <= 0)) return null;
  return session as StoredSession;
}
