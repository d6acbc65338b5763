// Profile and creator rules: what a signed-in user may read and change about themselves. The SQL
// is in queries.ts.
import type { CreatorMe, Profile, ProfileUpdate } from '@tollbooth/contract';
import type { UserRow } from '../auth/users-service.ts';
import { readCreditsCents } from '../billing/service.ts';
import type { Database } from '../db/client.ts';
import { createReadRouter, DEFAULT_READ_TIMEOUT_MS, type Reader, type ReadRouter } from '../db/reads.ts';
import { decodeKeysetCursor, takeKeysetPage } from '../http/pagination.ts';
import { AppError, invalidParam } from '../platform/errors.ts';
import { selectCreator, selectCreatorPage, selectProfileUser, updateCreatorDisplayName, updateUserNames } from './queries.ts';

const centsToDollars = (cents: number) => Math.round(cents) / 100;

export function createProfileService({
  db,
  reads = createReadRouter({ primary: db, statementTimeoutMs: DEFAULT_READ_TIMEOUT_MS }),
}: {
  db: Database;
  /** The creators directory's reads, on the replica once it has the reader's last change (db/reads.ts). */
  reads?: ReadRouter;
}) {
  const readProfile = async (userId: string): Promise<Profile> => {
    const user = await selectProfileUser(db, userId);
    if (!user) throw new AppError('not_found', 'User not found');
    const creator = await selectCreator(db, userId);
    const creditsCents = creator ? await readCreditsCents(db, userId) : 0;
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
  };

  const readCreatorMe = async (userId: string): Promise<CreatorMe> => {
    const creator = await selectCreator(db, userId);
    if (!creator) throw new AppError('not_found', 'Creator profile not found');
    const creditsCents = await readCreditsCents(db, userId);
    return {
      id: userId,
      display_name: creator.display_name,
      plan: creator.plan,
      credits: centsToDollars(creditsCents),
      credits_cents: creditsCents,
      created_at: creator.created_at.toISOString(),
    };
  };

  return {
    readProfile,

    async updateProfile(current: UserRow, update: ProfileUpdate): Promise<Profile> {
      const user = update.user ?? {};
      if (user.email !== undefined && user.email !== current.email) throw invalidParam('user.email', 'Email cannot be changed through this form.');
      if (user.id !== undefined && user.id !== current.id) throw invalidParam('user.id', 'cannot be changed');
      const trimmed = {
        first_name: user.first_name?.trim() ?? null,
        last_name: user.last_name?.trim() ?? null,
        display_name: user.display_name?.trim() ?? null,
        username: user.username?.trim() ?? null,
      };
      await db.transaction(async (tx) => {
        try {
          await updateUserNames(tx, current.id, trimmed);
        } catch (error) {
          if ((error as { code?: string }).code === '23505') throw invalidParam('user.username', 'A user with that username already exists.');
          throw error;
        }
        if (update.creator) await updateCreatorDisplayName(tx, current.id, update.creator.display_name.trim());
      });
      return readProfile(current.id);
    },

    readCreatorMe,

    async updateCreatorMe(userId: string, displayName: string): Promise<CreatorMe> {
      await updateCreatorDisplayName(db, userId, displayName.trim());
      return readCreatorMe(userId);
    },

    /** The creators directory, paged by cursor (or by the old `offset`, kept for a release). */
    async listCreators(reader: Reader, limit: number, cursor: string | undefined, offset: number) {
      const { rows, count } = await selectCreatorPage(reads.as(reader), limit, decodeKeysetCursor(cursor), offset);
      const page = takeKeysetPage(rows, limit);
      return {
        count,
        results: page.items.map((row) => ({ id: row.id, display_name: row.display_name, created_at: row.created_at.toISOString() })),
        has_more: page.has_more,
        next_cursor: page.next_cursor,
      };
    },
  };
}

export type ProfileService = ReturnType<typeof createProfileService>;
