import type { UserRow } from '../auth/users-service.ts';
import type { Queryable } from '../db/client.ts';
import { decodeKeysetCursor, keysetAtSql, keysetBefore, type Page, type PageRequest, takeKeysetPage } from '../http/pagination.ts';

export interface ApiKeyRow {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  monthly_spend_limit_cents: number | null;
  max_price_cents: number | null;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  spent_this_month_cents: number;
  kind: 'secret' | 'publishable';
  publishable_key: string | null;
  allowed_origins: string[] | null;
  app_slugs: string[] | null;
  daily_spend_limit_cents: number | null;
  visitor_rate_limit_per_minute: number | null;
  spent_today_cents: number;
}

/** The bindings a publishable key carries (all set for kind publishable, by the table's CHECK). */
export interface PublishableBindings {
  publishableKey: string;
  allowedOrigins: string[];
  appSlugs: string[];
  dailySpendLimitCents: number;
  visitorRateLimitPerMinute: number;
}

/** A publishable key as the embed widget and its calls check it; `revoked_at` set when revoked (the caller then refuses it). */
export interface PublishableKeyLookupRow {
  id: string;
  user_id: string;
  monthly_spend_limit_cents: number;
  daily_spend_limit_cents: number;
  allowed_origins: string[];
  app_slugs: string[];
  visitor_rate_limit_per_minute: number;
  revoked_at: Date | null;
  user: UserRow;
}

export interface ApiKeyLookupRow {
  id: string;
  user_id: string;
  monthly_spend_limit_cents: number | null;
  max_price_cents: number | null;
  last_used_at: Date | null;
  /** The key's user, read in the same query so a paid call needs one lookup to know its caller. */
  user: UserRow;
}

// Start of the current calendar month in UTC, whatever the session time zone.
const START_OF_UTC_MONTH = "(date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')";

// Only what calls were actually charged counts: failed calls are never charged.
const SPENT_THIS_MONTH = `coalesce((
  SELECT sum(i.price_cents) FROM invocations i
  WHERE i.api_key_id = k.id AND i.created_at >= ${START_OF_UTC_MONTH} AND i.status = 'success'
), 0)::bigint`;

// Start of the current day in UTC: a publishable key's daily cap.
const START_OF_UTC_DAY = "(date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')";

const SPENT_TODAY = `coalesce((
  SELECT sum(i.price_cents) FROM invocations i
  WHERE i.api_key_id = k.id AND i.created_at >= ${START_OF_UTC_DAY} AND i.status = 'success'
), 0)::bigint`;

const KEY_COLUMNS = `k.id, k.user_id, k.name, k.prefix, k.monthly_spend_limit_cents, k.max_price_cents, k.created_at, k.last_used_at, k.revoked_at,
  ${SPENT_THIS_MONTH} AS spent_this_month_cents, k.kind, k.publishable_key, k.allowed_origins, k.app_slugs, k.daily_spend_limit_cents,
  k.visitor_rate_limit_per_minute, CASE WHEN k.kind = 'publishable' THEN ${SPENT_TODAY} ELSE 0 END AS spent_today_cents`;

export async function insertApiKey(
  db: Queryable,
  key: {
    userId: string;
    name: string;
    prefix: string;
    keyHash: string;
    monthlySpendLimitCents: number | null;
    maxPriceCents: number | null;
    publishable?: PublishableBindings;
  },
): Promise<ApiKeyRow> {
  const bound = key.publishable;
  const { rows } = await db.query<ApiKeyRow>(
    `WITH k AS (
       INSERT INTO api_keys (user_id, name, prefix, key_hash, monthly_spend_limit_cents, max_price_cents,
         kind, publishable_key, allowed_origins, app_slugs, daily_spend_limit_cents, visitor_rate_limit_per_minute)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING *
     )
     SELECT ${KEY_COLUMNS} FROM k`,
    [
      key.userId,
      key.name,
      key.prefix,
      key.keyHash,
      key.monthlySpendLimitCents,
      key.maxPriceCents,
      bound ? 'publishable' : 'secret',
      bound?.publishableKey ?? null,
      bound?.allowedOrigins ?? null,
      bound?.appSlugs ?? null,
      bound?.dailySpendLimitCents ?? null,
      bound?.visitorRateLimitPerMinute ?? null,
    ],
  );
  return rows[0]!;
}

/** One page of the user's keys, newest first; `kind` keeps one kind only. */
export async function selectApiKeysByUser(
  db: Queryable,
  userId: string,
  includeRevoked: boolean,
  page: PageRequest,
  kind: 'secret' | 'publishable' | null = null,
): Promise<Page<ApiKeyRow>> {
  const older = keysetBefore({ at: 'k.created_at', id: 'k.id', idType: 'uuid' }, decodeKeysetCursor(page.cursor), 5);
  const { rows } = await db.query<ApiKeyRow & { cursor_at: string }>(
    `SELECT ${KEY_COLUMNS}, ${keysetAtSql('k.created_at')} AS cursor_at FROM api_keys k
     WHERE k.user_id = $1 AND ($2 OR k.revoked_at IS NULL) AND ($4::text IS NULL OR k.kind = $4) ${older.sql}
     ORDER BY k.created_at DESC, k.id DESC LIMIT $3`,
    [userId, includeRevoked, page.limit + 1, kind, ...older.params],
  );
  return takeKeysetPage(rows, page.limit);
}

/** Revokes a key of the user; revoking twice keeps the first time. Returns false when the user has no such key. */
export async function markApiKeyRevoked(db: Queryable, keyId: string, userId: string): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 AND user_id = $2', [keyId, userId]);
  return rowCount > 0;
}

/** A live key by hash, for authentication: not revoked, and its user still active. */
export async function selectLiveApiKeyByHash(db: Queryable, keyHash: string): Promise<ApiKeyLookupRow | null> {
  const { rows } = await db.query<ApiKeyLookupRow>(
    `SELECT k.id, k.user_id, k.monthly_spend_limit_cents, k.max_price_cents, k.last_used_at,
       json_build_object('id', u.id, 'issuer', u.issuer, 'subject', u.subject, 'email', u.email, 'username', u.username,
         'first_name', u.first_name, 'last_name', u.last_name, 'display_name', u.display_name, 'is_active', u.is_active,
         'date_joined', u.date_joined) AS user
     FROM api_keys k JOIN users u ON u.id = k.user_id
     WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND u.is_active AND k.kind = 'secret'`,
    [keyHash],
  );
  const row = rows[0];
  if (!row) return null;
  return { ...row, user: { ...row.user, date_joined: new Date(row.user.date_joined) } };
}

/**
 * Records a use of the key unless one was recorded in the last minute. The condition lives in
 * SQL too, so processes racing on the same key write at most once per minute between them.
 */
export async function touchApiKeyLastUsed(db: Queryable, keyId: string): Promise<void> {
  await db.query(
    `UPDATE api_keys SET last_used_at = now()
     WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    [keyId],
  );
}

export async function selectSpentThisMonthCents(db: Queryable, keyId: string): Promise<number> {
  const { rows } = await db.query<{ spent: number }>(`SELECT ${SPENT_THIS_MONTH} AS spent FROM (SELECT $1::uuid AS id) k`, [keyId]);
  return rows[0]?.spent ?? 0;
}

/** Live (unrevoked) keys of a user, counted under a lock on the user row so concurrent creations queue. */
export async function countLiveApiKeysForUpdate(db: Queryable, userId: string): Promise<number> {
  await db.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
  const { rows } = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL', [userId]);
  return rows[0]?.count ?? 0;
}

/** A publishable key by hash, revoked or not (so a revoked key gets its own refusal), with its active user. */
export async function selectPublishableKeyByHash(db: Queryable, keyHash: string): Promise<PublishableKeyLookupRow | null> {
  const { rows } = await db.query<PublishableKeyLookupRow>(
    `SELECT k.id, k.user_id, k.monthly_spend_limit_cents, k.daily_spend_limit_cents, k.allowed_origins, k.app_slugs,
       k.visitor_rate_limit_per_minute, k.revoked_at,
       json_build_object('id', u.id, 'issuer', u.issuer, 'subject', u.subject, 'email', u.email, 'username', u.username,
         'first_name', u.first_name, 'last_name', u.last_name, 'display_name', u.display_name, 'is_active', u.is_active,
         'date_joined', u.date_joined) AS user
     FROM api_keys k JOIN users u ON u.id = k.user_id
     WHERE k.key_hash = $1 AND k.kind = 'publishable' AND u.is_active`,
    [keyHash],
  );
  const row = rows[0];
  if (!row) return null;
  return { ...row, user: { ...row.user, date_joined: new Date(row.user.date_joined) } };
}

export async function selectSpentTodayCents(db: Queryable, keyId: string): Promise<number> {
  const { rows } = await db.query<{ spent: number }>(`SELECT ${SPENT_TODAY} AS spent FROM (SELECT $1::uuid AS id) k`, [keyId]);
  return rows[0]?.spent ?? 0;
}
