// With SMTP_URL set, a new local account gets a verification mail (nodemailer) and its sign-up
// credits only once the link in it is opened; without mail, credits come at once. The link holds
// a random token; only its SHA-256 is stored, and it works once.
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import nodemailer from 'nodemailer';
import type { Config } from '../../config.ts';
import type { Queryable } from '../../db/client.ts';
import type { LocalAccount } from './accounts.ts';

export const VERIFY_EMAIL_PATH = '/oidc/verify-email';
const TOKEN_VALID_HOURS = 72;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export type EmailVerifier = ReturnType<typeof createEmailVerifier>;

export function createEmailVerifier({ config, db, log }: { config: Config; db: Queryable; log: FastifyBaseLogger }) {
  const smtpUrl = config.mail.smtpUrl;
  if (!smtpUrl) return null;
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    /** Stores a fresh token and mails the link; a mail failure is logged (the user can sign up again later). */
    async send(account: LocalAccount) {
      const token = randomBytes(32).toString('base64url');
      await db.query(`UPDATE oidc_accounts SET verification_token_hash = $2, verification_expires_at = now() + make_interval(hours => $3) WHERE id = $1`, [
        account.id,
        hashToken(token),
        TOKEN_VALID_HOURS,
      ]);
      const link = `${config.publicUrl}${VERIFY_EMAIL_PATH}?token=${token}`;
      try {
        await transport.sendMail({
          from: config.mail.from,
          to: account.email,
          subject: `Confirm your email for ${config.productName}`,
          text: `Hello ${account.displayName},\n\nConfirm your email address to receive your sign-up credits:\n\n${link}\n\nThe link works for ${TOKEN_VALID_HOURS} hours. If you did not create an account, ignore this mail.\n`,
        });
      } catch (error) {
        log.error({ err: error }, 'sending the verification mail failed');
      }
    },

    /** Marks the account of a valid, unused token verified; returns its id, or null. */
    async verify(token: string): Promise<string | null> {
      const { rows } = await db.query<{ id: string }>(
        `UPDATE oidc_accounts SET email_verified_at = now(), verification_token_hash = NULL
         WHERE verification_token_hash = $1 AND verification_expires_at > now() RETURNING id`,
        [hashToken(token)],
      );
      return rows[0]?.id ?? null;
    },

    close: () => transport.close(),
  };
}
