// A user row and its creator profile are created the first time a token's subject is seen,
// together with the sign-up credit grant, in one transaction. The SQL is in queries.ts.

import type { Database, Queryable } from '../db/client.ts';
import { insertCreator, insertUser, isCreator, lockUser, selectUserBySubject, selectUsernamesStartingWith, type UserRow } from './queries.ts';

export type { UserRow } from './queries.ts';

export interface IdentityClaims {
  issuer: string;
  subject: string;
  email?: string;
  name?: string;
  givenName?: string;
  familyName?: string;
  preferredUsername?: string;
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

/**
 * What a new user gets from billing, in the transaction that creates them: their money accounts, and
 * the sign-up credits. Billing's service is it (app.ts passes it), so authentication, which every
 * feature uses, imports no feature.
 */
export interface UserAccounts {
  openUserAccounts(tx: Queryable, userId: string): Promise<void>;
  /** Grants the sign-up credits unless already granted; false when they were. */
  grantSignupCredits(tx: Queryable, userId: string, cents: number): Promise<boolean>;
}

export async function findOrCreateUser(db: Database, claims: IdentityClaims, signupCreditsCents: number, accounts: UserAccounts): Promise<UserRow> {
  const existing = await selectUserBySubject(db, claims.issuer, claims.subject);
  if (existing) return existing;
  // Two new users whose e-mails share a local part may pick the same username at the same
  // instant: the unique index refuses the second, which then picks again.
  for (let attempt = 0; ; attempt++) {
    try {
      return await createUser(db, claims, signupCreditsCents, accounts);
    } catch (error) {
      const { code, constraint } = error as { code?: string; constraint?: string };
      if (attempt < 5 && code === '23505' && constraint === 'users_username_unique') continue;
      throw error;
    }
  }
}

async function createUser(db: Database, claims: IdentityClaims, signupCreditsCents: number, accounts: UserAccounts): Promise<UserRow> {
  return db.transaction(async (tx) => {
    const base = usernameCandidate(claims);
    // A taken username gets a short suffix; the unique index decides races.
    const takenSet = new Set((await selectUsernamesStartingWith(tx, base)).map((taken) => taken.toLowerCase()));
    let username = base;
    for (let n = 2; takenSet.has(username); n++) username = `${base}${n}`;
    const displayName = claims.name || [claims.givenName, claims.familyName].filter(Boolean).join(' ') || claims.email?.split('@')[0] || '';
    const user = await insertUser(tx, {
      issuer: claims.issuer,
      subject: claims.subject,
      email: claims.email ?? '',
      username,
      firstName: claims.givenName ?? '',
      lastName: claims.familyName ?? '',
      displayName,
    });
    if (!user) {
      // Another request created it first; its transaction also made the grant.
      const raced = await selectUserBySubject(tx, claims.issuer, claims.subject);
      if (!raced) throw new Error('user vanished after a conflicting insert');
      return raced;
    }
    await insertCreator(tx, user.id, displayName);
    await accounts.openUserAccounts(tx, user.id);
    if (signupCreditsCents > 0) await accounts.grantSignupCredits(tx, user.id, signupCreditsCents);
    return user;
  });
}

/** Grants the sign-up credits once (a verified email, after the user row was made without them); false if already granted. */
export async function grantSignupCreditsOnce(db: Database, userId: string, cents: number, accounts: UserAccounts): Promise<boolean> {
  if (cents <= 0) return false;
  return db.transaction(async (tx) => {
    // The user row is locked so two verifications of one account cannot both grant.
    await lockUser(tx, userId);
    return accounts.grantSignupCredits(tx, userId, cents);
  });
}

/** The users service the routes receive: what a signed-in user is. */
export function createUsersService({ db }: { db: Database }) {
  return {
    async readRoles(userId: string): Promise<('user' | 'creator')[]> {
      return (await isCreator(db, userId)) ? ['user', 'creator'] : ['user'];
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
