// The SQL of profiles: the signed-in user's own row, its creator profile and the public directory.
import type { UserRow } from '../auth/users-service.ts';
import type { Queryable } from '../db/client.ts';
import { type KeysetPosition, keysetAfter, keysetAtSql } from '../http/pagination.ts';

export interface CreatorRow {
  display_name: string;
  plan: string;
  created_at: Date;
}

export type ProfileUserRow = Omit<UserRow, 'issuer' | 'subject'>;

export async function selectProfileUser(db: Queryable, userId: string): Promise<ProfileUserRow | null> {
  const { rows } = await db.query<ProfileUserRow>(
    'SELECT id, username, email, first_name, last_name, display_name, is_active, date_joined FROM users WHERE id = $1',
    [userId],
  );
  return rows[0] ?? null;
}

export async function selectCreator(db: Queryable, userId: string): Promise<CreatorRow | null> {
  const { rows } = await db.query<CreatorRow>('SELECT display_name, plan, created_at FROM creators WHERE user_id = $1', [userId]);
  return rows[0] ?? null;
}

/** Sets the given names (null leaves one unchanged); a taken username fails with 23505. */
export async function updateUserNames(
  tx: Queryable,
  userId: string,
  names: { first_name: string | null; last_name: string | null; display_name: string | null; username: string | null },
): Promise<void> {
  await tx.query(
    `UPDATE users SET
           first_name = coalesce($2, first_name),
           last_name = coalesce($3, last_name),
           display_name = coalesce($4, display_name),
           username = coalesce($5, username),
           updated_at = now()
         WHERE id = $1`,
    [userId, names.first_name, names.last_name, names.display_name, names.username],
  );
}

export async function updateCreatorDisplayName(tx: Queryable, userId: string, displayName: string): Promise<void> {
  await tx.query('UPDATE creators SET display_name = $2, updated_at = now() WHERE user_id = $1', [userId, displayName]);
}

/**
 * A page of active creators, oldest first, and how many there are: after the keyset position, or
 * (the old form, kept for a release) after `offset` rows. One more row than the limit is read, so the
 * caller knows whether another page follows.
 */
export async function selectCreatorPage(db: Queryable, limit: number, after: KeysetPosition | null, offset: number) {
  const keyset = keysetAfter({ at: 'c.created_at', id: 'c.user_id', idType: 'uuid' }, after, 3);
  const [page, total] = await Promise.all([
    db.query<{ id: string; display_name: string; created_at: Date; cursor_at: string }>(
      `SELECT c.user_id AS id, c.display_name, c.created_at, ${keysetAtSql('c.created_at')} AS cursor_at
       FROM creators c JOIN users u ON u.id = c.user_id
       WHERE u.is_active ${keyset.sql} ORDER BY c.created_at, c.user_id LIMIT $1 OFFSET $2`,
      [limit + 1, offset, ...keyset.params],
    ),
    db.query<{ count: number }>('SELECT count(*)::int AS count FROM creators c JOIN users u ON u.id = c.user_id WHERE u.is_active'),
  ]);
  return { rows: page.rows, count: total.rows[0]?.count ?? 0 };
}
