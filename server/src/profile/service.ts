// Profile and creator rules: what a signed-in user may read and change about themselves.
import type { CreatorMe, Profile, ProfileUpdate } from '@tollbooth/contract';
import type { UserRow } from '../auth/users-service.ts';
import { readBalanceCents } from '../billing/ledger.ts';
import type { Database } from '../db/client.ts';
import { AppError, invalidParam } from '../errors.ts';

interface CreatorRow {
  display_name: string;
  plan: string;
  created_at: Date;
}

const centsToDollars = (cents: number) => Math.round(cents) / 100;

async function findCreator(db: Database, userId: string): Promise<CreatorRow | null> {
  const { rows } = await db.query<CreatorRow>('SELECT display_name, plan, created_at FROM creators WHERE user_id = $1', [userId]);
  return rows[0] ?? null;
}

export async function readProfile(db: Database, userId: string): Promise<Profile> {
  const { rows } = await db.query<UserRow>('SELECT id, username, email, first_name, last_name, display_name, is_active, date_joined FROM users WHERE id = $1', [
    userId,
  ]);
  const user = rows[0];
  if (!user) throw new AppError('not_found', 'User not found');
  const creator = await findCreator(db, userId);
  const creditsCents = creator ? await readBalanceCents(db, 'user_credits', userId) : 0;
  return {
    user: {
      id: user.id,
      username: user.username,
      email: user.email,
      first_name: user.first_name,
      last_name: user.last_name,
      display_name: user.display_name,
      is_active: user.is_active,
      date_joined: user.date_joined.toISOString(),
    },
    creator: creator ? { display_name: creator.display_name, plan: creator.plan, credits: centsToDollars(creditsCents), credits_cents: creditsCents } : null,
  };
}

export async function updateProfile(db: Database, current: UserRow, update: ProfileUpdate): Promise<Profile> {
  const user = update.user ?? {};
  if (user.email !== undefined && user.email !== current.email) throw invalidParam('user.email', 'Email cannot be changed through this form.');
  if (user.id !== undefined && user.id !== current.id) throw invalidParam('user.id', 'cannot be changed');
  const trimmed = {
    first_name: user.first_name?.trim(),
    last_name: user.last_name?.trim(),
    display_name: user.display_name?.trim(),
    username: user.username?.trim(),
  };
  await db.transaction(async (tx) => {
    try {
      await tx.query(
        `UPDATE users SET
           first_name = coalesce($2, first_name),
           last_name = coalesce($3, last_name),
           display_name = coalesce($4, display_name),
           username = coalesce($5, username),
           updated_at = now()
         WHERE id = $1`,
        [current.id, trimmed.first_name ?? null, trimmed.last_name ?? null, trimmed.display_name ?? null, trimmed.username ?? null],
      );
    } catch (error) {
      if ((error as { code?: string }).code === '23505') throw invalidParam('user.username', 'A user with that username already exists.');
      throw error;
    }
    if (update.creator) {
      await tx.query('UPDATE creators SET display_name = $2, updated_at = now() WHERE user_id = $1', [current.id, update.creator.display_name.trim()]);
    }
  });
  return readProfile(db, current.id);
}

export async function readCreatorMe(db: Database, userId: string): Promise<CreatorMe> {
  const creator = await findCreator(db, userId);
  if (!creator) throw new AppError('not_found', 'Creator profile not found');
  const creditsCents = await readBalanceCents(db, 'user_credits', userId);
  return {
    id: userId,
    display_name: creator.display_name,
    plan: creator.plan,
    credits: centsToDollars(creditsCents),
    credits_cents: creditsCents,
    created_at: creator.created_at.toISOString(),
  };
}

export async function updateCreatorMe(db: Database, userId: string, displayName: string): Promise<CreatorMe> {
  await db.query('UPDATE creators SET display_name = $2, updated_at = now() WHERE user_id = $1', [userId, displayName.trim()]);
  return readCreatorMe(db, userId);
}

export async function listCreators(db: Database, limit: number, offset: number) {
  const [page, total] = await Promise.all([
    db.query<{ id: string; display_name: string; created_at: Date }>(
      `SELECT c.user_id AS id, c.display_name, c.created_at FROM creators c JOIN users u ON u.id = c.user_id
       WHERE u.is_active ORDER BY c.created_at, c.user_id LIMIT $1 OFFSET $2`,
      [limit, offset],
    ),
    db.query<{ count: number }>('SELECT count(*)::int AS count FROM creators c JOIN users u ON u.id = c.user_id WHERE u.is_active'),
  ]);
  return {
    count: total.rows[0]?.count ?? 0,
    results: page.rows.map((row) => ({ id: row.id, display_name: row.display_name, created_at: row.created_at.toISOString() })),
  };
}
