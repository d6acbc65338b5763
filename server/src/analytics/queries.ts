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

/** The rows of one statement over a period: $1 is the app (or apps, or owner), $2 and $3 the period's first and last day. */
async function periodRows<Row>(db: Queryable, sql: string, of: string | string[], start: string, end: string): Promise<Row[]> {
  const { rows } = await db.query<Row>(sql, [of, start, end]);
  return rows;
}

/** The owner's live (not deleted) applications. */
const OWNED_APP_IDS = 'SELECT a.id FROM apps a WHERE a.owner_id = $1 AND a.deleted_at IS NULL';

export async function selectAppDailyStats(db: Queryable, appId: string, start: string, end: string): Promise<DailyStatsRow[]> {
  return periodRows<DailyStatsRow>(
    db,
    `SELECT day, invocations, successes, errors, rejections, latency_ms_sum, input_tokens, output_tokens, revenue_cents, fee_cents, model_cost_micros
     FROM app_daily_stats WHERE app_id = $1 AND day BETWEEN $2::date AND $3::date ORDER BY day`,
    appId,
    start,
    end,
  );
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
  return periodRows<{ day: string; users: number }>(
    db,
    'SELECT day, count(*)::int AS users FROM app_daily_users WHERE app_id = $1 AND day BETWEEN $2::date AND $3::date GROUP BY day',
    appId,
    start,
    end,
  );
}

export interface OwnedAppRow {
  id: string;
  name: string;
  slug: string;
  type: 'prompt' | 'workflow';
  /** When it was last called, as ISO 8601 in UTC to the millisecond (written by the database: no Date per row). */
  last_used_at: string | null;
  /** The day app_totals is as of (null: the app was never called). */
  as_of: string | null;
}

/** The per-app figures the dashboard's table shows for a period. */
export type AppPeriodTotals = Pick<DailyTotals, 'invocations' | 'successes' | 'errors' | 'rejections' | 'latency_ms_sum'>;

/** An owned app as selectOwnedApps reads it: id, name, slug, type, last used, as of, fresh, then the period's five figures. */
type OwnedAppTuple = [string, string, string, OwnedAppRow['type'], string | null, string | null, boolean, number, number, number, number, number];

/** The periods app_totals keeps the before-the-period part of (migration 0060). */
export const APP_TOTALS_PERIODS = [7, 30, 90] as const;
const PERIOD_FIGURES = ['invocations', 'successes', 'errors', 'rejections', 'latency_ms_sum'] as const;

/**
 * The owner's applications (newest first), each with when it was last called and, from its running
 * totals (app_totals), its figures for the `days` days ending `end`: all of them less those before the
 * period, one row per app. Those figures are null where they would not be the period's: the totals
 * are as of another day (not rolled yet) or hold a call after `end`; the caller sums the days of
 * those apps instead (selectAppPeriodTotals).
 */
export async function selectOwnedApps(
  db: Queryable,
  ownerId: string,
  days: (typeof APP_TOTALS_PERIODS)[number],
  end: string,
): Promise<(OwnedAppRow & { period: AppPeriodTotals | null })[]> {
  if (!APP_TOTALS_PERIODS.includes(days)) throw new Error(`app_totals keeps no ${days}-day period`);
  const fresh = "t.as_of = $2::date AND (t.last_used_at AT TIME ZONE 'UTC')::date <= $2::date";
  // One JSON array of one array per app: a creator with 1,000 apps is one field to decode
  // (JSON.parse), not 12,000 (the driver's text-to-value per field was the answer's largest cost).
  const { rows } = await db.query<{ apps: OwnedAppTuple[] }>(
    `SELECT coalesce(json_agg(json_build_array(
         a.id, a.name, a.slug, a.type, to_char(t.last_used_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), t.as_of::text,
         coalesce(${fresh}, false), ${PERIOD_FIGURES.map((figure) => `t.${figure} - t.before${days}_${figure}`).join(', ')}
       ) ORDER BY a.created_at DESC, a.id), '[]') AS apps
     FROM apps a LEFT JOIN app_totals t ON t.app_id = a.id
     WHERE a.owner_id = $1 AND a.deleted_at IS NULL`,
    [ownerId, end],
  );
  return (rows[0]?.apps ?? []).map(([id, name, slug, type, last_used_at, as_of, isFresh, invocations, successes, errors, rejections, latency_ms_sum]) => ({
    id,
    name,
    slug,
    type,
    last_used_at,
    as_of,
    period: isFresh ? { invocations, successes, errors, rejections, latency_ms_sum } : null,
  }));
}

/** The period's figures of these apps, summed over their days (apps × days: only for apps whose totals are not as of today). */
export async function selectAppPeriodTotals(db: Queryable, appIds: string[], start: string, end: string): Promise<(AppPeriodTotals & { app_id: string })[]> {
  if (appIds.length === 0) return [];
  const { rows } = await db.query<AppPeriodTotals & { app_id: string }>(
    `SELECT s.app_id, ${PERIOD_FIGURES.map((figure) => `sum(s.${figure})::bigint AS ${figure}`).join(', ')}
     FROM app_daily_stats s
     WHERE s.app_id = ANY($1::uuid[]) AND s.day BETWEEN $2::date AND $3::date
     GROUP BY s.app_id`,
    [appIds, start, end],
  );
  return rows;
}

/** The owner's figures per day over their live apps (owner_daily_stats: one row per day, whatever the number of apps). */
export async function selectOwnerDailyStats(db: Queryable, ownerId: string, start: string, end: string): Promise<DailyStatsRow[]> {
  return periodRows<DailyStatsRow>(
    db,
    `SELECT day::text AS day, invocations, successes, errors, rejections, latency_ms_sum, input_tokens, output_tokens, revenue_cents, fee_cents, model_cost_micros
     FROM owner_daily_stats WHERE owner_id = $1 AND day BETWEEN $2::date AND $3::date ORDER BY day`,
    ownerId,
    start,
    end,
  );
}

/**
 * Moves up to `batch` apps' running totals forward to `day` (default: the database's UTC today) with
 * migration 0060's analytics_roll_app_totals; returns how many it moved (0: none was behind).
 */
export async function rollAppTotals(db: Queryable, batch: number, day: string | null = null): Promise<number> {
  const { rows } = await db.query<{ rolled: number }>(
    "SELECT analytics_roll_app_totals(coalesce($1::date, (now() AT TIME ZONE 'UTC')::date), $2::int) AS rolled",
    [day, batch],
  );
  return rows[0]?.rolled ?? 0;
}

export interface ErrorGroupRow {
  outcome: 'failed' | 'rejected';
  error_type: string;
  count: number;
}

/** Failed and rejected calls by type over a period from a daily errors rollup, whose `key` is $1 (`having` filters the groups). */
const errorGroupsSql = (table: string, key: string, having: string) => `SELECT outcome, error_type, sum(count)::bigint AS count
     FROM ${table}
     WHERE ${key} = $1 AND day BETWEEN $2::date AND $3::date
     GROUP BY outcome, error_type${having}
     ORDER BY count DESC, error_type`;
const OWNER_ERRORS_SQL = errorGroupsSql('owner_daily_errors', 'owner_id', '\n     HAVING sum(count) > 0');
const APP_ERRORS_SQL = errorGroupsSql('app_daily_errors', 'app_id', '');

/** Failed and rejected calls by type over the owner's live apps, from the per-owner totals (deleted apps already taken out). */
export async function selectOwnerErrors(db: Queryable, ownerId: string, start: string, end: string): Promise<ErrorGroupRow[]> {
  return periodRows<ErrorGroupRow>(db, OWNER_ERRORS_SQL, ownerId, start, end);
}

/** Failed and rejected calls of one app by type over the period. */
export async function selectAppErrors(db: Queryable, appId: string, start: string, end: string): Promise<ErrorGroupRow[]> {
  return periodRows<ErrorGroupRow>(db, APP_ERRORS_SQL, appId, start, end);
}

/** Rejected calls of one app per day and error type (the usage CSV's columns). */
export async function selectAppDailyRejections(
  db: Queryable,
  appId: string,
  start: string,
  end: string,
): Promise<{ day: string; error_type: string; count: number }[]> {
  return periodRows<{ day: string; error_type: string; count: number }>(
    db,
    `SELECT day, error_type, count FROM app_daily_errors
     WHERE app_id = $1 AND day BETWEEN $2::date AND $3::date AND outcome = 'rejected'`,
    appId,
    start,
    end,
  );
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
  /** What the call cost its caller, exactly (migration 0061; a call before it: price_cents in micro-dollars). */
  charge_micros: number;
  model_cost_micros: number;
  created_at: Date;
}

// Calls recorded before migration 0061 have charge_micros 0 beside the cents they were charged; any
// later call that posted cents has a charge above 0 (the cents posted are its charge, or its meter's growth).
const CHARGE_MICROS = 'CASE WHEN charge_micros = 0 THEN price_cents::bigint * 10000 ELSE charge_micros END AS charge_micros';

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
       latency_ms, input_tokens, output_tokens, price_cents, ${CHARGE_MICROS}, model_cost_micros, created_at, ${keysetAtSql('created_at')} AS cursor_at
     FROM invocations WHERE app_id = $1 ${older.sql}
     ORDER BY created_at DESC, id DESC
     LIMIT $2`,
    [appId, limit, ...older.params],
  );
  return rows;
}

const EXPORT_COLUMNS = `id, CASE WHEN end_user = caller_id::text THEN '' ELSE end_user END AS end_user, status, outcome, error_type,
       latency_ms, input_tokens, output_tokens, price_cents, ${CHARGE_MICROS}, model_cost_micros, created_at, ${keysetAtSql('created_at')} AS cursor_at`;

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
