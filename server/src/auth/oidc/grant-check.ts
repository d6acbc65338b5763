// Access tokens for the API are JWTs: the API verifies them without asking the provider, so by
// themselves they stay valid for their whole lifetime after sign-out or revocation. Each one
// names its grant (the `grant_id` claim, set in provider.ts); sign-out (end-session or
// POST /api/auth/logout) and revocation destroy the grant, and the API refuses a token whose grant
// is gone. Lookups are cached for MAX_AGE_MS, so another process notices within that time; this
// process forgets its cache entry at once when it destroys a grant itself.
import type { Queryable } from '../../db/client.ts';

/** How long a "grant still exists" answer is trusted: sign-out reaches every process within it. */
export const GRANT_CHECK_MAX_AGE_MS = 30_000;
const MAX_ENTRIES = 10_000;

export interface GrantCheck {
  /** True while the grant exists (not revoked, not signed out, not expired). */
  isActive(grantId: string): Promise<boolean>;
  /** Drops the cached answer for a grant, or for every grant. */
  forget(grantId?: string): void;
  /** Destroys a grant and every token and code issued under it. */
  revoke(grantId: string): Promise<void>;
}

export function createGrantCheck(db: Queryable, { maxAgeMs = GRANT_CHECK_MAX_AGE_MS }: { maxAgeMs?: number } = {}): GrantCheck {
  const active = new Map<string, number>();
  const gone = new Set<string>();
  return {
    async isActive(grantId) {
      if (gone.has(grantId)) return false;
      const checkedAt = active.get(grantId);
      if (checkedAt !== undefined && Date.now() - checkedAt < maxAgeMs) return true;
      const { rows } = await db.query("SELECT 1 FROM oidc_payloads WHERE model = 'Grant' AND id = $1 AND (expires_at IS NULL OR expires_at > now())", [
        grantId,
      ]);
      if (active.size >= MAX_ENTRIES) active.clear();
      if (rows.length === 0) {
        active.delete(grantId);
        if (gone.size >= MAX_ENTRIES) gone.clear();
        gone.add(grantId); // a destroyed grant never comes back
        return false;
      }
      active.set(grantId, Date.now());
      return true;
    },
    forget(grantId) {
      if (grantId === undefined) active.clear();
      else active.delete(grantId);
    },
    async revoke(grantId) {
      active.delete(grantId);
      await db.query("DELETE FROM oidc_payloads WHERE (model = 'Grant' AND id = $1) OR grant_id = $1", [grantId]);
    },
  };
}
