// The SQL of the operator's view. Everything reads rollups bounded by the period's days: the
// platform's per-day, per-model totals (platform_daily_model_stats), the per-app per-day totals
// (app_daily_stats) and, for test runs per account, test_runs by its created_at.
import type { Queryable } from '../db/client.ts';

export interface ModelDayRow {
  day: string;
  provider: string;
  model: string;
  calls: number;
  test_runs: number;
  paid_cents: number;
  fee_cents: number;
  model_cost_micros: number;
}

export async function selectPlatformModelDays(db: Queryable, start: string, end: string): Promise<ModelDayRow[]> {
  const { rows } = await db.query<ModelDayRow>(
    `SELECT day, provider, model, calls, test_runs, paid_cents, fee_cents, model_cost_micros
     FROM platform_daily_model_stats WHERE day BETWEEN $1::date AND $2::date ORDER BY day`,
    [start, end],
  );
  return rows;
}

/** Subscription revenue in other currencies than the US dollar over the period, per currency (never converted, never added up). */
export async function selectCurrencyRevenue(db: Queryable, start: string, end: string): Promise<{ currency: string; amount_minor: number }[]> {
  const { rows } = await db.query<{ currency: string; amount_minor: string }>(
    `SELECT currency, sum(revenue_minor)::bigint AS amount_minor FROM app_daily_currency_revenue
     WHERE day BETWEEN $1::date AND $2::date GROUP BY currency ORDER BY currency`,
    [start, end],
  );
  return rows.map((row) => ({ currency: row.currency, amount_minor: Number(row.amount_minor) }));
}

export interface TopAppRow {
  app_id: string;
  name: string;
  slug: string;
  status: string;
  deleted: boolean;
  price_cents: number;
  owner_email: string;
  calls: number;
  paid_cents: number;
  fee_cents: number;
  model_cost_micros: number;
}

/** The apps whose calls cost the most upstream over the period (then the most paid), deleted ones included. */
export async function selectTopApps(db: Queryable, start: string, end: string, limit: number): Promise<TopAppRow[]> {
  const { rows } = await db.query<TopAppRow>(
    `WITH per_app AS (
       SELECT s.app_id, sum(s.successes)::bigint AS calls, sum(s.revenue_cents)::bigint AS paid_cents,
         sum(s.fee_cents)::bigint AS fee_cents, sum(s.model_cost_micros)::bigint AS model_cost_micros
       FROM app_daily_stats s WHERE s.day BETWEEN $1::date AND $2::date
       GROUP BY s.app_id
       ORDER BY model_cost_micros DESC, paid_cents DESC, s.app_id
       LIMIT $3
     )
     SELECT p.app_id, a.name, a.slug, a.status, a.deleted_at IS NOT NULL AS deleted, a.price_cents, u.email AS owner_email,
       p.calls, p.paid_cents, p.fee_cents, p.model_cost_micros
     FROM per_app p JOIN apps a ON a.id = p.app_id JOIN users u ON u.id = a.owner_id
     ORDER BY p.model_cost_micros DESC, p.paid_cents DESC, p.app_id`,
    [start, end, limit],
  );
  return rows;
}

export interface TopAccountRow {
  user_id: string;
  email: string;
  display_name: string;
  apps: number;
  calls: number;
  test_runs: number;
  paid_cents: number;
  fee_cents: number;
  model_cost_micros: number;
}

/**
 * The accounts whose model cost was highest over the period: their apps' calls (app_daily_stats,
 * the owner's own calls included) plus their test runs.
 */
export async function selectTopAccounts(db: Queryable, start: string, end: string, limit: number): Promise<TopAccountRow[]> {
  const { rows } = await db.query<TopAccountRow>(
    `WITH app_totals AS (
       SELECT a.owner_id AS user_id, count(DISTINCT s.app_id)::bigint AS apps, sum(s.successes)::bigint AS calls,
         sum(s.revenue_cents)::bigint AS paid_cents, sum(s.fee_cents)::bigint AS fee_cents, sum(s.model_cost_micros)::bigint AS model_cost_micros
       FROM app_daily_stats s JOIN apps a ON a.id = s.app_id
       WHERE s.day BETWEEN $1::date AND $2::date
       GROUP BY a.owner_id
     ),
     test_totals AS (
       SELECT t.user_id, count(*)::bigint AS test_runs, sum(t.model_cost_micros)::bigint AS model_cost_micros
       FROM test_runs t
       WHERE t.created_at >= ($1::date)::timestamp AT TIME ZONE 'UTC' AND t.created_at < ($2::date + 1)::timestamp AT TIME ZONE 'UTC'
       GROUP BY t.user_id
     ),
     per_account AS (
       SELECT coalesce(a.user_id, t.user_id) AS user_id, coalesce(a.apps, 0)::bigint AS apps, coalesce(a.calls, 0)::bigint AS calls,
         coalesce(t.test_runs, 0)::bigint AS test_runs, coalesce(a.paid_cents, 0)::bigint AS paid_cents, coalesce(a.fee_cents, 0)::bigint AS fee_cents,
         (coalesce(a.model_cost_micros, 0) + coalesce(t.model_cost_micros, 0))::bigint AS model_cost_micros
       FROM app_totals a FULL JOIN test_totals t ON t.user_id = a.user_id
       ORDER BY model_cost_micros DESC, paid_cents DESC, user_id
       LIMIT $3
     )
     SELECT p.user_id, u.email, u.display_name, p.apps, p.calls, p.test_runs, p.paid_cents, p.fee_cents, p.model_cost_micros
     FROM per_account p JOIN users u ON u.id = p.user_id
     ORDER BY p.model_cost_micros DESC, p.paid_cents DESC, p.user_id`,
    [start, end, limit],
  );
  return rows;
}

export interface LocalAccountRow {
  id: string;
  email: string;
  display_name: string;
  created_at: Date;
  verified: boolean;
}

/** The embedded provider's local account of an email (any case), if there is one. */
export async function selectLocalAccountByEmail(db: Queryable, email: string): Promise<LocalAccountRow | null> {
  const { rows } = await db.query<LocalAccountRow>(
    `SELECT id, email, display_name, created_at, email_verified_at IS NOT NULL AS verified FROM oidc_accounts WHERE lower(email) = lower($1)`,
    [email],
  );
  return rows[0] ?? null;
}

/** Marks a local account's email verified (kept when it already was). */
export async function markEmailVerified(db: Queryable, accountId: string): Promise<void> {
  await db.query('UPDATE oidc_accounts SET email_verified_at = coalesce(email_verified_at, now()) WHERE id = $1', [accountId]);
}
