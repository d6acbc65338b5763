// A user row and its creator profile are created the first time a token's subject is seen,
// together with the sign-up credit grant, in one transaction.

import { findOrCreateUserAccount, findSystemAccount, postLedgerTransaction } from '../billing/ledger.ts';
import type { Database, Queryable } from '../db/client.ts';

export interface UserRow {
  id: string;
  issuer: string;
  subject: string;
  email: string;
  username: string;
  first_name: string;
  last_name: string;
  display_name: string;
  is_active: boolean;
  date_joined: Date;
}

export interface IdentityClaims {
  issuer: string;
  subject: string;
  email?: string;
  name?: string;
  givenName?: string;
  familyName?: string;
  preferredUsername?: string;
}

const USER_COLUMNS = 'id, issuer, subject, email, username, first_name, last_name, display_name, is_active, date_joined';

export async function findUserBySubject(db: Queryable, issuer: string, subject: string): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE issuer = $1 AND subject = $2`, [issuer, subject]);
  return rows[0] ?? null;
}

export async function findUserById(db: Queryable, id: string): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

/** Turns an e-mail or name into a username candidate: letters, digits and . _ - only. */
export function usernameCandidate(claims: IdentityClaims): string {
  const source = claims.preferredUsername || claims.email?.split('@')[0] || claims.name || 'user';
  const cleaned = source
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '')
    .slice(0, 30);
  return cleaned || 'user';
}

export async function findOrCreateUser(db: Database, claims: IdentityClaims, signupCreditsCents: number): Promise<UserRow> {
  const existing = await findUserBySubject(db, claims.issuer, claims.subject);
  if (existing) return existing;
  // Two new users whose e-mails share a local part may pick the same username at the same
  // instant: the unique index refuses the second, which then picks again.
  for (let attempt = 0; ; attempt++) {
    try {
      return await createUser(db, claims, signupCreditsCents);
    } catch (error) {
      const { code, constraint } = error as { code?: string; constraint?: string };
      if (attempt < 5 && code === '23505' && constraint === 'users_username_unique') continue;
      throw error;
    }
  }
}

async function createUser(db: Database, claims: IdentityClaims, signupCreditsCents: number): Promise<UserRow> {
  return db.transaction(async (tx) => {
    const base = usernameCandidate(claims);
    // A taken username gets a short suffix; the unique index decides races.
    const taken = await tx.query<{ username: string }>("SELECT username FROM users WHERE lower(username) LIKE $1 || '%'", [base]);
    const takenSet = new Set(taken.rows.map((row) => row.username.toLowerCase()));
    let username = base;
    for (let n = 2; takenSet.has(username); n++) username = `${base}${n}`;
    const displayName = claims.name || [claims.givenName, claims.familyName].filter(Boolean).join(' ') || claims.email?.split('@')[0] || '';
    const inserted = await tx.query<UserRow>(
      `INSERT INTO users (issuer, subject, email, username, first_name, last_name, display_name)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (issuer, subject) DO NOTHING
       RETURNING ${USER_COLUMNS}`,
      [claims.issuer, claims.subject, claims.email ?? '', username, claims.givenName ?? '', claims.familyName ?? '', displayName],
    );
    const user = inserted.rows[0];
    if (!user) {
      // Another request created it first; its transaction also made the grant.
      const raced = await findUserBySubject(tx, claims.issuer, claims.subject);
      if (!raced) throw new Error('user vanished after a conflicting insert');
      return raced;
    }
    await tx.query('INSERT INTO creators (user_id, display_name) VALUES ($1, $2)', [user.id, displayName]);
    const credits = await findOrCreateUserAccount(tx, 'user_credits', user.id);
    await findOrCreateUserAccount(tx, 'creator_earnings', user.id);
    if (signupCreditsCents > 0) await postSignupGrant(tx, user.id, credits, signupCreditsCents);
    return user;
  });
}

async function postSignupGrant(tx: Queryable, userId: string, creditsAccount: number, cents: number) {
  const funding = await findSystemAccount(tx, 'outside_funding');
  await postLedgerTransaction(tx, {
    kind: 'signup_grant',
    reference: `signup:${userId}`,
    description: 'Sign-up credits',
    entries: [
      { accountId: funding, amountCents: -cents },
      { accountId: creditsAccount, amountCents: cents },
    ],
  });
}

/** Grants the sign-up credits once (a verified email, after the user row was made without them); false if already granted. */
export async function grantSignupCreditsOnce(db: Database, userId: string, cents: number): Promise<boolean> {
  if (cents <= 0) return false;
  return db.transaction(async (tx) => {
    // The user row is locked so two verifications of one account cannot both grant.
    await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
    const { rows } = await tx.query('SELECT 1 FROM ledger_transactions WHERE reference = $1', [`signup:${userId}`]);
    if (rows.length > 0) return false;
    await postSignupGrant(tx, userId, await findOrCreateUserAccount(tx, 'user_credits', userId), cents);
    return true;
  });
}
