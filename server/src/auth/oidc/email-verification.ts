// Verification links of accounts made before sign-up waited for the mailed link (issue 24): with
// SMTP_URL set, such an account got a mail with a random token (only its SHA-256 is stored) and its
// sign-up credits once the link is opened, once. New accounts are verified when they are created
// (pending-sign-ups.ts), so no new links are made; the ones already mailed keep working.
import { createHash } from 'node:crypto';
import type { Queryable } from '../../db/client.ts';
import type { Config } from '../../platform/config.ts';

export const VERIFY_EMAIL_PATH = '/oidc/verify-email';

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export type EmailVerifier = ReturnType<typeof createEmailVerifier>;

export function createEmailVerifier({ config, db }: { config: Config; db: Queryable }) {
  if (!config.mail.smtpUrl) return null;
  return {
    /** Marks the account of a valid, unused token verified; returns its id, or null. */
    async verify(token: string): Promise<string | null> {
      const { rows } = await db.query<{ id: string }>(
        `UPDATE oidc_accounts SET email_verified_at = now(), verification_token_hash = NULL
         WHERE verification_token_hash = $1 AND verification_expires_at > now() RETURNING id`,
        [hashToken(token)],
      );
      return rows[0]?.id ?? null;
    },
  };
}
