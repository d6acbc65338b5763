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

/** The periods app_totals keeps the before-the-period part of (migration 0060). */
export const APP_TOTALS_PERIODS = [7, 30, 90] as const;
const PERIOD_FIGURES = ['invocations', 'successes', 'errors', 'rejections', 'latency_ms_sum'] as const;

/** The dashboard's applications: how many, and their answer's JSON array, as written (see selectDashboardApps). */
export interface DashboardApps {
  count: number;
  /** `[{"application_name":…,"last_used":…},…]`, most called first: the text JSON.stringify would write. */
  json: string;
}

/** A JSON string (quoted, escaped) of a text value; the database's escaping reads back the same string. */
const jsonString = (sql: string) => `to_json(${sql})::text`;

/**
 * period.ts's percent(successes, successes + errors) and meanSeconds(latency, successes + errors)
 * as SQL writing their JSON number: floor(x + 0.5) is Math.round for these non-negative values, and
 * float8's text is the shortest that reads back the same double, as JavaScript's (analytics/dashboard-json.test.ts).
 */
export const successRateJsonSql = (successes: string, errors: string) =>
  `CASE WHEN ${successes} + ${errors} > 0 THEN (floor((${successes} * 10000)::float8 / (${successes} + ${errors}) + 0.5) / 100)::text ELSE '0' END`;
export const responseTimeJsonSql = (latency: string, successes: string, errors: string) =>
  `CASE WHEN ${successes} + ${errors} > 0 THEN (floor(${latency}::float8 / (${successes} + ${errors}) + 0.5) / 1000)::text ELSE '0' END`;

/**
 * The owner's applications as the dashboard lists them, written as JSON by the database: a creator
 * with 1,000 apps answered through objects cost the server ~7 ms of CPU a request (decoding 12,000
 * driver fields or a JSON value, an object per app, sorting, serializing 228 KB again, and the
 * garbage of it all); as text, the answer is spliced in (decision 0160).
 *
 * Each app's figures for the `days` days ending `end` come from its running totals (app_totals: all
 * of them less those before the period), or, when those are as of another day (not rolled yet) or
 * hold a call after `end`, from its days in app_daily_stats (a lateral read run only for those apps).
 * Ordered most called first, ties newest first (created_at, then id).
 */
export async function selectDashboardApps(
  db: Queryable,
  ownerId: string,
  days: (typeof APP_TOTALS_PERIODS)[number],
  start: string,
  end: string,
): Promise<DashboardApps> {
  if (!APP_TOTALS_PERIODS.includes(days)) throw new Error(`app_totals keeps no ${days}-day period`);
  const fresh = "coalesce(t.as_of = $2::date AND (t.last_used_at AT TIME ZONE 'UTC')::date <= $2::date, false)";
  const figure = (name: (typeof PERIOD_FIGURES)[number]) => `CASE WHEN o.fresh THEN o.${name} ELSE coalesce(d.${name}, 0) END AS ${name}`;
  const { rows } = await db.query<DashboardApps>(
    `WITH owned AS (
       SELECT a.id, a.name, a.slug, a.type, a.created_at, t.last_used_at, ${fresh} AS fresh,
              ${PERIOD_FIGURES.map((name) => `t.${name} - t.before${days}_${name} AS ${name}`).join(', ')}
       FROM apps a LEFT JOIN app_totals t ON t.app_id = a.id
       WHERE a.owner_id = $1 AND a.deleted_at IS NULL
     ), figures AS (
       SELECT o.id, o.name, o.slug, o.type, o.created_at, o.last_used_at, ${PERIOD_FIGURES.map(figure).join(', ')}
       FROM owned o LEFT JOIN LATERAL (
         SELECT ${PERIOD_FIGURES.map((name) => `sum(s.${name})::bigint AS ${name}`).join(', ')}
         FROM app_daily_stats s
         WHERE NOT o.fresh AND s.app_id = o.id AND s.day BETWEEN $3::date AND $2::date
       ) d ON true
     )
     SELECT count(*)::int AS count, '[' || coalesce(string_agg(
         '{"application_name":' || ${jsonString('f.name')} ||
         ',"application_slug":' || ${jsonString('f.slug')} ||
         ',"application_type":' || ${jsonString('f.type')} ||
         ',"invocations":' || f.invocations ||
         ',"success_rate":' || ${successRateJsonSql('f.successes', 'f.errors')} ||
         ',"rejected_count":' || f.rejections ||
         ',"avg_response_time":' || ${responseTimeJsonSql('f.latency_ms_sum', 'f.successes', 'f.errors')} ||
         ',"last_used":' || coalesce('"' || to_char(f.last_used_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null') || '}',
         ',' ORDER BY f.invocations DESC, f.created_at DESC, f.id), '') || ']' AS json
     FROM figures f`,
    [ownerId, end, start],
  );
  return rows[0] ?? { count: 0, json: '[]' };
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
