// Local accounts of the embedded provider: sign-up validation, credential checks and the claims
// the provider hands out. The account id is the OIDC subject.
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../db/client.ts';
import { hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from './password.ts';
import { weakPasswordReason } from './password-strength.ts';

let unknownAccountHashPromise: Promise<string> | null = null;
/** A real scrypt hash of a random password, made once, to check against when the email is unknown. */
const unknownAccountHash = () => {
  unknownAccountHashPromise ??= hashPassword(randomBytes(16).toString('hex'));
  return unknownAccountHashPromise;
};

export interface LocalAccount {
  id: string;
  email: string;
  displayName: string;
  createdAt: Date;
  emailVerified: boolean;
}

interface AccountRow {
  id: string;
  email: string;
  display_name: string;
  created_at: Date | string;
  password_hash: string;
  email_verified_at: Date | string | null;
}

export type SignUpField = 'email' | 'password' | 'display_name';
export type SignUpResult = { ok: true; account: LocalAccount } | { ok: false; field: SignUpField; message: string };
export type SignInResult = { ok: true; account: LocalAccount } | { ok: false; reason: 'invalid_credentials' };

export const MESSAGES = {
  // One message for an unknown email and a wrong password, so the form does not tell which emails have accounts.
  invalidCredentials: 'Incorrect email or password.',
  slowedDown: 'This account had many failed sign-in attempts, so each attempt now waits 2 seconds to protect it.',
  tooManySignUps: 'Too many accounts were created from your network recently. Please try again later.',
  tooManyAttempts: 'Too many failed sign-in attempts from your network. Please wait a minute and try again.',
  missingCredentials: 'Enter your email and password.',
  emailTaken: 'An account with that email already exists.',
  // What the sign-up form says instead of emailTaken without SMTP_URL (with it, every email gets
  // "Check your email"), so it does not confirm that an email has an account.
  signUpNotPossible: 'We could not create an account with this email and password. If you already have an account, sign in instead.',
  wrongSignUpPassword: 'That is not the password chosen when signing up. Enter the same password, or sign up again.',
  invalidEmail: 'Enter a valid email address.',
  shortPassword: `Password must be at least ${MIN_PASSWORD_LENGTH} characters.`,
  longPassword: 'Password must be at most 256 characters.',
  missingDisplayName: 'Display name is required.',
  longDisplayName: 'Display name must be at most 100 characters.',
} as const;

const MAX_PASSWORD_LENGTH = 256;
const MAX_DISPLAY_NAME_LENGTH = 100;
// Deliberately loose: one @, something on both sides, a dot in the domain, no spaces.
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const toAccount = (row: AccountRow): LocalAccount => ({
  id: row.id,
  email: row.email,
  displayName: row.display_name,
  createdAt: new Date(row.created_at),
  emailVerified: row.email_verified_at !== null,
});

export function normalizeEmail(raw: string): string {
  return raw.trim();
}

export type SignUpCheck = { ok: true; email: string; displayName: string } | { ok: false; field: SignUpField; message: string };

/** The sign-up form's own checks, which depend on what was typed only (never on the accounts that exist). */
export function checkSignUp(input: { email: string; password: string; displayName: string }): SignUpCheck {
  const email = normalizeEmail(input.email);
  const displayName = input.displayName.trim();
  if (email.length > 254 || !EMAIL_PATTERN.test(email)) return { ok: false, field: 'email', message: MESSAGES.invalidEmail };
  if (input.password.length < MIN_PASSWORD_LENGTH) return { ok: false, field: 'password', message: MESSAGES.shortPassword };
  if (input.password.length > MAX_PASSWORD_LENGTH) return { ok: false, field: 'password', message: MESSAGES.longPassword };
  const weak = weakPasswordReason(input.password, [email, displayName]);
  if (weak) return { ok: false, field: 'password', message: weak };
  if (!displayName) return { ok: false, field: 'display_name', message: MESSAGES.missingDisplayName };
  if (displayName.length > MAX_DISPLAY_NAME_LENGTH) return { ok: false, field: 'display_name', message: MESSAGES.longDisplayName };
  return { ok: true, email, displayName };
}

export interface AccountStore {
  findById(id: string): Promise<LocalAccount | null>;
  signUp(input: { email: string; password: string; displayName: string }): Promise<SignUpResult>;
  signIn(input: { email: string; password: string }): Promise<SignInResult>;
}

export function createAccountStore(db: Queryable): AccountStore {
  const findRowByEmail = async (email: string) => {
    const { rows } = await db.query<AccountRow>('SELECT * FROM oidc_accounts WHERE lower(email) = lower($1)', [email]);
    return rows[0] ?? null;
  };

  return {
    async findById(id) {
      // Subjects come from cookies and tokens; anything that is not a uuid cannot be ours.
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
      const { rows } = await db.query<AccountRow>('SELECT * FROM oidc_accounts WHERE id = $1', [id]);
      return rows[0] ? toAccount(rows[0]) : null;
    },

    async signUp(input) {
      const checked = checkSignUp(input);
      if (!checked.ok) return checked;
      const { email, displayName } = checked;
      // Checked before hashing: for a taken email the sign-up route checks the password against that
      // account instead, the same scrypt work. The insert below still decides races.
      if (await findRowByEmail(email)) return { ok: false, field: 'email', message: MESSAGES.emailTaken };

      const passwordHash = await hashPassword(input.password);
      const { rows } = await db.query<AccountRow>(
        `INSERT INTO oidc_accounts (email, password_hash, display_name) VALUES ($1, $2, $3)
         ON CONFLICT DO NOTHING RETURNING *`,
        [email, passwordHash, displayName],
      );
      return rows[0] ? { ok: true, account: toAccount(rows[0]) } : { ok: false, field: 'email', message: MESSAGES.emailTaken };
    },

    async signIn(input) {
      const row = await findRowByEmail(normalizeEmail(input.email));
      // An unknown email costs the same scrypt work as a wrong password, so timing does not tell either.
      const valid = await verifyPassword(input.password, row?.password_hash ?? (await unknownAccountHash()));
      if (!row || !valid) return { ok: false, reason: 'invalid_credentials' };
      return { ok: true, account: toAccount(row) };
    },
  };
}

/** Standard claims of an account; oidc-provider keeps those the granted scopes allow. */
export function accountClaims(account: LocalAccount) {
  return {
    sub: account.id,
    email: account.email,
    // Verified only through the mailed link (SMTP_URL); without mail there is no confirmation step.
    email_verified: account.emailVerified,
    name: account.displayName,
  };
}
