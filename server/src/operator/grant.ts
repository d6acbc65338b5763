// `npm run operator -- grant EMAIL` (issue 56): the operator page needs a verified email that
// ADMIN_EMAILS lists, and without SMTP_URL no local account's email is ever verified by a mailed
// link. Run on the server, with its database, this command verifies the email of an existing local
// account: whoever can run it there already holds the database, so it proves what a mailed link
// would. It names the account (display name, sign-up time) so the operator checks it is theirs and
// not one someone else signed up with that email first. See docs/decisions/0084-operator-grant.md.
import type { Queryable } from '../db/client.ts';
import { markEmailVerified, selectLocalAccountByEmail } from './queries.ts';

export type GrantResult =
  | { outcome: 'verified' | 'already_verified'; email: string; displayName: string; createdAt: Date; listed: boolean }
  | { outcome: 'no_account'; email: string };

export async function grantOperator(db: Queryable, email: string, adminEmails: readonly string[]): Promise<GrantResult> {
  const account = await selectLocalAccountByEmail(db, email.trim());
  if (!account) return { outcome: 'no_account', email: email.trim() };
  if (!account.verified) await markEmailVerified(db, account.id);
  return {
    outcome: account.verified ? 'already_verified' : 'verified',
    email: account.email,
    displayName: account.display_name,
    createdAt: new Date(account.created_at),
    listed: adminEmails.includes(account.email.toLowerCase()),
  };
}

/** What the command prints for a result; `ok` false makes it exit 1. */
export function describeGrant(result: GrantResult): { ok: boolean; lines: string[] } {
  if (result.outcome === 'no_account') {
    return {
      ok: false,
      lines: [`No account has the email ${result.email}: sign up with it on the sign-up page first, then run this again.`],
    };
  }
  const who = `${result.email} (account "${result.displayName}", signed up ${result.createdAt.toISOString()})`;
  const lines = [
    result.outcome === 'verified' ? `Verified ${who}.` : `${who} was already verified.`,
    'Check that this is your account: anyone could have signed up with this email before you.',
  ];
  lines.push(
    result.listed
      ? 'ADMIN_EMAILS lists it: sign out and in again to see the operator page (/operator).'
      : `ADMIN_EMAILS does not list it: set ADMIN_EMAILS=${result.email} (comma-separated with others) and restart the server to open the operator page to it.`,
  );
  return { ok: true, lines };
}
