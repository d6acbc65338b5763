// Sign-up with SMTP_URL set (issue 24): the form answers "Check your email" for every address, after
// the same work, so it does not tell whether an email has an account. The form's data waits in
// oidc_pending_sign_ups (password hashed); a new address is mailed a link that creates the account
// once the password chosen on the form is entered again, and an address that has an account is
// mailed a notice pointing to sign-in. Mails go out after the answer, so the SMTP server's speed
// does not show in it either. docs/decisions/0038-sign-up-that-tells-nothing.md.
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import nodemailer from 'nodemailer';
import type { Database } from '../../db/client.ts';
import type { Config } from '../../platform/config.ts';
import { hashPassword, verifyPassword } from './password.ts';

export const FINISH_SIGN_UP_PATH = '/oidc/finish-sign-up';
export const SIGN_UP_LINK_VALID_HOURS = 24;
const CLOSE_WAIT_MS = 5_000;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export type FinishResult = { kind: 'invalid' } | { kind: 'wrong_password'; email: string } | { kind: 'exists' } | { kind: 'created'; accountId: string };

export type PendingSignUps = NonNullable<ReturnType<typeof createPendingSignUps>>;

interface PendingRow {
  id: string;
  email: string;
  password_hash: string;
  display_name: string;
}

export function createPendingSignUps({ config, db, log }: { config: Config; db: Database; log: FastifyBaseLogger }) {
  const smtpUrl = config.mail.smtpUrl;
  if (!smtpUrl) return null;
  const transport = nodemailer.createTransport(smtpUrl);
  const sending = new Set<Promise<void>>();

  const mail = (to: string, subject: string, text: string) => {
    // The address as an object, so nodemailer does not parse it as a list (the form's pattern allows commas).
    const sent = transport.sendMail({ from: config.mail.from, to: { name: '', address: to }, subject, text }).then(
      () => undefined,
      (error: unknown) => log.error({ err: error }, 'sending a sign-up mail failed'),
    );
    sending.add(sent);
    void sent.finally(() => sending.delete(sent));
  };

  const findValid = async (token: string) => {
    const { rows } = await db.query<PendingRow>('SELECT * FROM oidc_pending_sign_ups WHERE token_hash = $1 AND expires_at > now()', [hashToken(token)]);
    return rows[0] ?? null;
  };

  return {
    /**
     * The same steps for any email: hash the password, one statement that stores the sign-up only
     * when no account has the email, and a mail queued either way (a link, or a notice).
     */
    async start(input: { email: string; password: string; displayName: string }): Promise<void> {
      const passwordHash = await hashPassword(input.password);
      const token = randomBytes(32).toString('base64url');
      const { rows } = await db.query<{ id: string }>(
        `INSERT INTO oidc_pending_sign_ups (email, password_hash, display_name, token_hash, expires_at)
         SELECT $1, $2, $3, $4, now() + make_interval(hours => $5)
         WHERE NOT EXISTS (SELECT 1 FROM oidc_accounts WHERE lower(email) = lower($1))
         RETURNING id`,
        [input.email, passwordHash, input.displayName, hashToken(token), SIGN_UP_LINK_VALID_HOURS],
      );
      const product = config.productName;
      if (rows[0]) {
        // No display name in the mail: it is whatever the form said, possibly typed by someone else.
        mail(
          input.email,
          `Finish creating your ${product} account`,
          `Hello,\n\nSomeone, hopefully you, started creating a ${product} account with this email address. To finish, open this link and enter the password you chose:\n\n${config.publicUrl}${FINISH_SIGN_UP_PATH}?token=${token}\n\nThe link works once, for ${SIGN_UP_LINK_VALID_HOURS} hours. If it was not you, ignore this mail: no account is created without the password.\n`,
        );
      } else {
        mail(
          input.email,
          `Someone tried to create a ${product} account with your email`,
          `Hello,\n\nSomeone, perhaps you, tried to create a ${product} account with this email address, which already has an account. Nothing was changed and nobody was signed in.\n\nIf it was you, sign in instead:\n\n${config.publicUrl}/login\n\nIf it was not you, you can ignore this mail.\n`,
        );
      }
    },

    /** The email a valid, unused link is for; null for any other token. */
    async emailOf(token: string): Promise<string | null> {
      return token ? ((await findValid(token))?.email ?? null) : null;
    },

    /**
     * Creates the account of a valid link when the password is the one chosen on the form; the
     * email is verified (the link reached it). The link is used up, and every other waiting
     * sign-up of the email removed, in the same transaction.
     */
    async finish(token: string, password: string): Promise<FinishResult> {
      const pending = token ? await findValid(token) : null;
      if (!pending) return { kind: 'invalid' };
      if (!(await verifyPassword(password, pending.password_hash))) return { kind: 'wrong_password', email: pending.email };
      return db.transaction(async (tx): Promise<FinishResult> => {
        const used = await tx.query('DELETE FROM oidc_pending_sign_ups WHERE id = $1 AND expires_at > now() RETURNING id', [pending.id]);
        if (used.rows.length === 0) return { kind: 'invalid' };
        const { rows } = await tx.query<{ id: string }>(
          `INSERT INTO oidc_accounts (email, password_hash, display_name, email_verified_at) VALUES ($1, $2, $3, now())
           ON CONFLICT DO NOTHING RETURNING id`,
          [pending.email, pending.password_hash, pending.display_name],
        );
        await tx.query('DELETE FROM oidc_pending_sign_ups WHERE lower(email) = lower($1)', [pending.email]);
        return rows[0] ? { kind: 'created', accountId: rows[0].id } : { kind: 'exists' };
      });
    },

    async deleteExpired(): Promise<number> {
      const { rows } = await db.query('DELETE FROM oidc_pending_sign_ups WHERE expires_at <= now() RETURNING id');
      return rows.length;
    },

    /** Waits for the mails on their way (at most CLOSE_WAIT_MS: a hung SMTP server must not hold shutdown), then closes the SMTP connection. */
    async close() {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CLOSE_WAIT_MS);
      });
      await Promise.race([Promise.all(sending), waited]);
      clearTimeout(timer);
      if (sending.size > 0) log.warn({ count: sending.size }, 'sign-up mails still unsent at shutdown');
      transport.close();
    },
  };
}
