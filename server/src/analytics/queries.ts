// The SQL of analytics. Every dashboard query reads the rollups kept by recordInvocation (and the
// last-day tables of migration 0007), bounded by the app and the period; only the recent
// invocations read the invocations table, through its (app_id, created_at DESC, id DESC) index.
import type { Queryable } from '../db/client.ts';
import type { Reads } from '../db/reads.ts';
import { decodeKeysetCursor, type KeysetPosition, keysetAtSql, keysetBefore } from '../http/pagination.ts';

export interface DailyTotals {
  /** Every call, whatever its outcome. */
  invocations: number;
  successes: number;
  /** Failed calls (the app or its provider failed). */
  errors: number;
  /** Rejected calls (the caller's own mistake). */
  rejections: number;
  /** Of the successful and failed calls only (rejected calls' latency is not counted). */
  latency_ms_sum: number;
  input_tokens: number;
  output_tokens: number;
  revenue_cents: number;
  /** The platform's fee and the model cost (micro-dollars) of the successful calls. */
  fee_cents: number;
  model_cost_micros: number;
}

export interface DailyStatsRow extends DailyTotals {
  day: string;
}

const TOTALS = `sum(s.invocations)::bigint AS invocations, sum(s.successes)::bigint AS successes, sum(s.errors)::bigint AS errors,
  sum(s.rejections)::bigint AS rejections,
  sum(s.latency_ms_sum)::bigint AS latency_ms_sum, sum(s.input_tokens)::bigint AS input_tokens,
  sum(s.output_tokens)::bigint AS output_tokens, sum(s.revenue_cents)::bigint AS revenue_cents,
  sum(s.fee_cents)::bigint AS fee_cents, sum(s.model_cost_micros)::bigint AS model_cost_micros`;

/** The owner's live (not deleted) applications. */
const OWNED_APP_IDS = 'SELECT a.id FROM apps a WHERE a.owner_id = $1 AND a.deleted_at IS NULL';

export async function selectAppDailyStats(db: Queryable, appId: string, start: string, end: string): Promise<DailyStatsRow[]> {
  const { rows } = await db.query<DailyStatsRow>(
    `SELECT day, invocations, successes, errors, rejections, latency_ms_sum, input_tokens, output_tokens, revenue_cents, fee_cents, model_cost_micros
     FROM app_daily_stats WHERE app_id = $1 AND day BETWEEN $2::date AND $3::date ORDER BY day`,
    [appId, start, end],
  );
  return rows;
}

/** An app's revenue in other currencies than the US dollar over the period, per currency (decision 0035). */
export async function selectAppCurrencyRevenue(
  db: Queryable,
  appId: string,
  start: string,
  end: string,
): Promise<{ currency: string; amount_minor: number }[]> {
  const { rows } = await db.query<{ currency: string; amount_minor: string }>(
    `SELECT currency, sum(revenue_minor)::bigint AS amount_minor FROM app_daily_currency_revenue
     WHERE app_id = $1 AND day BETWEEN $2::date AND $3::date GROUP BY currency ORDER BY currency`,
    [appId, start, end],
  );
  return rows.map((row) => ({ currency: row.currency, amount_minor: Number(row.amount_minor) }));
}

/** Distinct end users of one app since `start` (periods always end today). */
export async function countAppUsersSince(db: Queryable, appId: string, start: string): Promise<number> {
  const { rows } = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM app_end_users WHERE app_id = $1 AND last_day >= $2::date', [
    appId,
    start,
  ]);
  return rows[0]?.count ?? 0;
}

/** Distinct end users per day of one app (the CSV export's column). */
export async function selectAppDailyUserCounts(db: Queryable, appId: string, start: string, end: string): Promise<{ day: string; users: number }[]> {
  const { rows } = await db.query<{ day: string; users: number }>(
    'SELECT day, count(*)::int AS users FROM app_daily_users WHERE app_id = $1 AND day BETWEEN $2::date AND $3::date GROUP BY day',
    [appId, start, end],
  );
  return rows;
}

export interface OwnedAppRow {
  id: string;
  name: string;
  slug: string;
  type: 'prompt' | 'workflow';
  last_used_at: Date | null;
}

/** The owner's applications, each with when it was last called (the newest rollup day's last call). */
export async function selectOwnedApps(db: Queryable, ownerId: string): Promise<OwnedAppRow[]> {
  const { rows } = await db.query<OwnedAppRow>(
    `SELECT a.id, a.name, a.slug, a.type,
       (SELECT s.last_used_at FROM app_daily_stats s WHERE s.app_id = a.id AND s.last_used_at IS NOT NULL ORDER BY s.day DESC LIMIT 1) AS last_used_at
     FROM apps a WHERE a.owner_id = $1 AND a.deleted_at IS NULL
     ORDER BY a.created_at DESC, a.id`,
    [ownerId],
  );
  return rows;
}

export interface OwnerTotalsRow extends DailyTotals {
  /** Set on per-app rows, null on per-day rows. */
  app_id: string | null;
  /** Set on per-day rows, null on per-app rows. */
  day: string | null;
}

/** One pass over the owner's rollups for the period, totalled both per app and per day. */
export async function selectOwnerTotals(db: Queryable, ownerId: string, start: string, end: string): Promise<OwnerTotalsRow[]> {
  const { rows } = await db.query<OwnerTotalsRow>(
    `SELECT s.app_id, s.day, ${TOTALS}
     FROM app_daily_stats s
     WHERE s.app_id IN (${OWNED_APP_IDS}) AND s.day BETWEEN $2::date AND $3::date
     GROUP BY GROUPING SETS ((s.app_id), (s.day))`,
    [ownerId, start, end],
  );
  return rows;
}

export interface ErrorGroupRow {
  outcome: 'failed' | 'rejected';
  error_type: string;
  count: number;
}

/** Failed and rejected calls by type over the owner's live apps, from the per-owner totals (deleted apps already taken out). */
export async function selectOwnerErrors(db: Queryable, ownerId: string, start: string, end: string): Promise<ErrorGroupRow[]> {
  const { rows } = await db.query<ErrorGroupRow>(
    `SELECT outcome, error_type, sum(count)::bigint AS count
     FROM owner_daily_errors
     WHERE owner_id = $1 AND day BETWEEN $2::date AND $3::date
     GROUP BY outcome, error_type
     HAVING sum(count) > 0
     ORDER BY count DESC, error_type`,
    [ownerId, start, end],
  );
  return rows;
}

/** Failed and rejected calls of one app by type over the period. */
export async function selectAppErrors(db: Queryable, appId: string, start: string, end: string): Promise<ErrorGroupRow[]> {
  const { rows } = await db.query<ErrorGroupRow>(
    `SELECT outcome, error_type, sum(count)::bigint AS count
     FROM app_daily_errors
     WHERE app_id = $1 AND day BETWEEN $2::date AND $3::date
     GROUP BY outcome, error_type
     ORDER BY count DESC, error_type`,
    [appId, start, end],
  );
  return rows;
}

/** Rejected calls of one app per day and error type (the usage CSV's columns). */
export async function selectAppDailyRejections(
  db: Queryable,
  appId: string,
  start: string,
  end: string,
): Promise<{ day: string; error_type: string; count: number }[]> {
  const { rows } = await db.query<{ day: string; error_type: string; count: number }>(
    `SELECT day, error_type, count FROM app_daily_errors
     WHERE app_id = $1 AND day BETWEEN $2::date AND $3::date AND outcome = 'rejected'`,
    [appId, start, end],
  );
  return rows;
}

/**
 * Distinct end users across the owner's live applications since `start`. The per-owner last-day
 * table answers it from one index range; only when a deleted app of the owner was used in the
 * period (its users must not count) does it fall back to de-duplicating the per-app sets.
 * The CASE's sub-selects are init plans, evaluated only for the branch taken.
 */
export async function countOwnerUsersSince(db: Queryable, ownerId: string, start: string): Promise<number> {
  const { rows } = await db.query<{ count: number }>(
    `SELECT CASE
       WHEN EXISTS (
         SELECT 1 FROM apps d JOIN app_end_users du ON du.app_id = d.id
         WHERE d.owner_id = $1 AND d.deleted_at IS NOT NULL AND du.last_day >= $2::date
       )
       THEN (SELECT count(DISTINCT u.end_user) FROM app_end_users u WHERE u.app_id IN (${OWNED_APP_IDS}) AND u.last_day >= $2::date)
       ELSE (SELECT count(*) FROM owner_end_users o WHERE o.owner_id = $1 AND o.last_day >= $2::date)
     END::int AS count`,
    [ownerId, start],
  );
  return rows[0]?.count ?? 0;
}

export interface InvocationRow {
  id: string;
  /** The `user` the caller sent; '' when none (the account id recorded in its place is not shown). */
  end_user: string;
  status: 'success' | 'error';
  outcome: 'success' | 'failed' | 'rejected';
  error_type: string;
  latency_ms: number;
  input_tokens: number;
  output_tokens: number;
  price_cents: number;
  model_cost_micros: number;
  created_at: Date;
}

/**
 * The newest calls of an app (older than `cursor` when given), read backwards along
 * invocations_app_created. A call without a `user` is recorded under its caller's account id (so
 * unique users still count callers); that id is the caller's private business and reads back as no user.
 * A widget call's `user` is the visitor's random id, which names nobody: it reads back as no user too
 * (Anonymous, issue 61), while unique users still count visitors.
 */
export async function selectRecentInvocations(
  db: Queryable,
  appId: string,
  limit: number,
  cursor?: string,
): Promise<(InvocationRow & { cursor_at: string })[]> {
  const older = keysetBefore({ at: 'created_at', id: 'id', idType: 'uuid' }, decodeKeysetCursor(cursor), 3);
  const { rows } = await db.query<InvocationRow & { cursor_at: string }>(
    `SELECT id,
       CASE WHEN end_user = caller_id::text
         OR EXISTS (SELECT 1 FROM api_keys k WHERE k.id = invocations.api_key_id AND k.kind = 'publishable') THEN ''
       ELSE end_user END AS end_user, status, outcome, error_type,
       latency_ms, input_tokens, output_tokens, price_cents, model_cost_micros, created_at, ${keysetAtSql('created_at')} AS cursor_at
     FROM invocations WHERE app_id = $1 ${older.sql}
     ORDER BY created_at DESC, id DESC
     LIMIT $2`,
    [appId, limit, ...older.params],
  );
  return rows;
}

const EXPORT_COLUMNS = `id, CASE WHEN end_user = caller_id::text THEN '' ELSE end_user END AS end_user, status, outcome, error_type,
       latency_ms, input_tokens, output_tokens, price_cents, model_cost_micros, created_at, ${keysetAtSql('created_at')} AS cursor_at`;

/**
 * Every call of an app from `since` on (-infinity: all), newest first, at most `limit` (null: all), handed
 * over `batchRows` at a time; only one batch is held. On PostgreSQL (and a replica) one cursor in one
 * read-only transaction: one snapshot, each FETCH under the statement timeout. On PGlite, keyset pages of
 * short statements instead: its one connection would be held, and every other statement (paid calls
 * included) kept waiting, for as long as the client takes to read the export.
 */
export async function eachInvocation(
  db: Reads,
  appId: string,
  { since, limit, batchRows }: { since: Date | null; limit: number | null; batchRows: number },
  onRows: (rows: InvocationRow[]) => Promise<void>,
): Promise<void> {
  const from = since ?? '-infinity';
  if (db.kind === 'postgres') {
    await db.eachBatch<InvocationRow>(
      `SELECT ${EXPORT_COLUMNS} FROM invocations WHERE app_id = $1 AND created_at >= $2::timestamptz ORDER BY created_at DESC, id DESC LIMIT $3`,
      [appId, from, limit],
      batchRows,
      onRows,
    );
    return;
  }
  let left = limit ?? Number.POSITIVE_INFINITY;
  let position: KeysetPosition | null = null;
  while (left > 0) {
    const older = keysetBefore({ at: 'created_at', id: 'id', idType: 'uuid' }, position, 4);
    const { rows } = await db.query<InvocationRow & { cursor_at: string }>(
      `SELECT ${EXPORT_COLUMNS} FROM invocations WHERE app_id = $1 AND created_at >= $2::timestamptz ${older.sql}
        ORDER BY created_at DESC, id DESC LIMIT $3`,
      [appId, from, Math.min(batchRows, left), ...older.params],
    );
    if (rows.length > 0) await onRows(rows);
    if (rows.length < Math.min(batchRows, left)) return;
    left -= rows.length;
    const last = rows.at(-1)!;
    position = { at: last.cursor_at, id: last.id };
  }
}
