// The SQL of users: the row a token's subject maps to, and the creator profile and roles beside it.
import type { Queryable } from '../db/client.ts';

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
  /**
   * The primary's WAL position after the user's last change (db/reads.ts, decision 0130): their reads
   * go to a replica only once it has replayed this far. Null when none is recorded; absent on rows
   * read another way (an API key's cached user).
   */
  written_lsn?: string | null;
}

const USER_COLUMNS = 'id, issuer, subject, email, username, first_name, last_name, display_name, is_active, date_joined';
const USER_COLUMNS_OF_U = USER_COLUMNS.split(', ')
  .map((column) => `u.${column}`)
  .join(', ');

/** The user a token names, with the WAL position of their last change (one statement per signed-in request). */
export async function selectUserBySubject(db: Queryable, issuer: string, subject: string): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>(
    `SELECT ${USER_COLUMNS_OF_U}, p.written_lsn::text AS written_lsn
       FROM users u LEFT JOIN user_write_positions p ON p.user_id = u.id
      WHERE u.issuer = $1 AND u.subject = $2`,
    [issuer, subject],
  );
  return rows[0] ?? null;
}

export async function selectUserById(db: Queryable, id: string): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

/** Usernames that start with `base` (case-insensitively), to pick a free one. */
export async function selectUsernamesStartingWith(tx: Queryable, base: string): Promise<string[]> {
  const { rows } = await tx.query<{ username: string }>("SELECT username FROM users WHERE lower(username) LIKE $1 || '%'", [base]);
  return rows.map((row) => row.username);
}

/** Inserts the user unless its subject exists already (then null). */
export async function insertUser(
  tx: Queryable,
  user: { issuer: string; subject: string; email: string; username: string; firstName: string; lastName: string; displayName: string },
): Promise<UserRow | null> {
  const { rows } = await tx.query<UserRow>(
    `INSERT INTO users (issuer, subject, email, username, first_name, last_name, display_name)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (issuer, subject) DO NOTHING
       RETURNING ${USER_COLUMNS}`,
    [user.issuer, user.subject, user.email, user.username, user.firstName, user.lastName, user.displayName],
  );
  return rows[0] ?? null;
}

export async function insertCreator(tx: Queryable, userId: string, displayName: string): Promise<void> {
  await tx.query('INSERT INTO creators (user_id, display_name) VALUES ($1, $2)', [userId, displayName]);
}

/** Locks the user row for the rest of the transaction. */
export async function lockUser(tx: Queryable, userId: string): Promise<void> {
  await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
}

export async function isCreator(db: Queryable, userId: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM creators WHERE user_id = $1', [userId]);
  return rows.length > 0;
}
