// Checks that the analytics rollups equal a full recomputation from the invocations: the per-app
// per-day totals (failed and rejected calls apart, rejected calls' latency left out), the per-day
// end users, failed and rejected calls by type per app and per owner (deleted apps excluded), and
// the last-day tables. Each call's outcome must follow from its status and error type.
import { expect } from 'vitest';
import type { Queryable } from '../db/client.ts';
import { outcomeOfErrorType } from '../platform/call-outcomes.ts';

const DAY = "(i.created_at AT TIME ZONE 'UTC')::date";

/** Rows of a query as sorted JSON lines, so two answers compare regardless of order. */
async function rowsOf(db: Queryable, sql: string): Promise<string[]> {
  const { rows } = await db.query(sql);
  return rows.map((row) => JSON.stringify(row)).sort();
}

export async function expectRollupsToMatchInvocations(db: Queryable) {
  const { rows: outcomes } = await db.query<{ status: string; error_type: string; outcome: string }>(
    'SELECT DISTINCT status, error_type, outcome FROM invocations',
  );
  for (const row of outcomes) expect(row.outcome, JSON.stringify(row)).toBe(row.status === 'success' ? 'success' : outcomeOfErrorType(row.error_type));
  expect(
    await rowsOf(
      db,
      `SELECT app_id, day::text, invocations, successes, errors, rejections, latency_ms_sum, input_tokens, output_tokens, revenue_cents, last_used_at
       FROM app_daily_stats`,
    ),
  ).toEqual(
    await rowsOf(
      db,
      `SELECT i.app_id, ${DAY}::text AS day, count(*)::bigint AS invocations,
         count(*) FILTER (WHERE i.status = 'success')::bigint AS successes, count(*) FILTER (WHERE i.outcome = 'failed')::bigint AS errors,
         count(*) FILTER (WHERE i.outcome = 'rejected')::bigint AS rejections,
         coalesce(sum(i.latency_ms) FILTER (WHERE i.outcome <> 'rejected'), 0)::bigint AS latency_ms_sum,
         sum(i.input_tokens)::bigint AS input_tokens, sum(i.output_tokens)::bigint AS output_tokens,
         sum(i.price_cents)::bigint AS revenue_cents, max(i.created_at) AS last_used_at
       FROM invocations i GROUP BY 1, 2`,
    ),
  );
  expect(await rowsOf(db, 'SELECT app_id, day::text, end_user FROM app_daily_users')).toEqual(
    await rowsOf(db, `SELECT DISTINCT i.app_id, ${DAY}::text AS day, i.end_user FROM invocations i WHERE i.end_user <> ''`),
  );
  expect(await rowsOf(db, 'SELECT app_id, day::text, error_type, outcome, count FROM app_daily_errors')).toEqual(
    await rowsOf(
      db,
      `SELECT i.app_id, ${DAY}::text AS day, i.error_type, i.outcome, count(*)::bigint AS count FROM invocations i WHERE i.status = 'error' GROUP BY 1, 2, 3, 4`,
    ),
  );
  expect(await rowsOf(db, 'SELECT owner_id, day::text, error_type, outcome, count FROM owner_daily_errors WHERE count <> 0')).toEqual(
    await rowsOf(
      db,
      `SELECT a.owner_id, ${DAY}::text AS day, i.error_type, i.outcome, count(*)::bigint AS count FROM invocations i JOIN apps a ON a.id = i.app_id
       WHERE i.status = 'error' AND a.deleted_at IS NULL GROUP BY 1, 2, 3, 4`,
    ),
  );
  expect(await rowsOf(db, 'SELECT app_id, end_user, last_day::text FROM app_end_users')).toEqual(
    await rowsOf(db, `SELECT i.app_id, i.end_user, max(${DAY})::text AS last_day FROM invocations i WHERE i.end_user <> '' GROUP BY 1, 2`),
  );
  expect(await rowsOf(db, 'SELECT owner_id, end_user, last_day::text FROM owner_end_users')).toEqual(
    await rowsOf(
      db,
      `SELECT a.owner_id, i.end_user, max(${DAY})::text AS last_day FROM invocations i JOIN apps a ON a.id = i.app_id
       WHERE i.end_user <> '' GROUP BY 1, 2`,
    ),
  );
  await expectOwnerAndAppTotalsToMatchDailyStats(db);
}

/**
 * The dashboard's and the catalog's rollups of the rollups (migration 0060) against app_daily_stats
 * (which expectRollupsToMatchInvocations checks against the calls): each owner's days over their live
 * apps, and each app's running totals with the part before each period as of the row's as_of.
 */
export async function expectOwnerAndAppTotalsToMatchDailyStats(db: Queryable) {
  expect(
    await rowsOf(
      db,
      'SELECT owner_id, day::text, invocations, successes, errors, rejections, latency_ms_sum, input_tokens, output_tokens, revenue_cents, fee_cents, model_cost_micros FROM owner_daily_stats WHERE invocations <> 0 OR successes <> 0 OR errors <> 0 OR rejections <> 0 OR latency_ms_sum <> 0 OR input_tokens <> 0 OR output_tokens <> 0 OR revenue_cents <> 0 OR fee_cents <> 0 OR model_cost_micros <> 0',
    ),
  ).toEqual(
    await rowsOf(
      db,
      `SELECT a.owner_id, s.day::text AS day, sum(s.invocations)::bigint AS invocations, sum(s.successes)::bigint AS successes, sum(s.errors)::bigint AS errors, sum(s.rejections)::bigint AS rejections, sum(s.latency_ms_sum)::bigint AS latency_ms_sum, sum(s.input_tokens)::bigint AS input_tokens, sum(s.output_tokens)::bigint AS output_tokens, sum(s.revenue_cents)::bigint AS revenue_cents, sum(s.fee_cents)::bigint AS fee_cents, sum(s.model_cost_micros)::bigint AS model_cost_micros
       FROM app_daily_stats s JOIN apps a ON a.id = s.app_id WHERE a.deleted_at IS NULL GROUP BY 1, 2
       HAVING sum(s.invocations) <> 0 OR sum(s.successes) <> 0 OR sum(s.errors) <> 0 OR sum(s.rejections) <> 0 OR sum(s.latency_ms_sum) <> 0 OR sum(s.input_tokens) <> 0 OR sum(s.output_tokens) <> 0 OR sum(s.revenue_cents) <> 0 OR sum(s.fee_cents) <> 0 OR sum(s.model_cost_micros) <> 0`,
    ),
  );
  expect(
    await rowsOf(
      db,
      'SELECT app_id, last_used_at, invocations, successes, errors, rejections, latency_ms_sum, before7_invocations, before7_successes, before7_errors, before7_rejections, before7_latency_ms_sum, before30_invocations, before30_successes, before30_errors, before30_rejections, before30_latency_ms_sum, before90_invocations, before90_successes, before90_errors, before90_rejections, before90_latency_ms_sum FROM app_totals',
    ),
  ).toEqual(
    await rowsOf(
      db,
      `SELECT t.app_id, max(s.last_used_at) AS last_used_at, coalesce(sum(s.invocations), 0)::bigint AS invocations, coalesce(sum(s.successes), 0)::bigint AS successes, coalesce(sum(s.errors), 0)::bigint AS errors, coalesce(sum(s.rejections), 0)::bigint AS rejections, coalesce(sum(s.latency_ms_sum), 0)::bigint AS latency_ms_sum, coalesce(sum(s.invocations) FILTER (WHERE s.day <= t.as_of - 7), 0)::bigint AS before7_invocations, coalesce(sum(s.successes) FILTER (WHERE s.day <= t.as_of - 7), 0)::bigint AS before7_successes, coalesce(sum(s.errors) FILTER (WHERE s.day <= t.as_of - 7), 0)::bigint AS before7_errors, coalesce(sum(s.rejections) FILTER (WHERE s.day <= t.as_of - 7), 0)::bigint AS before7_rejections, coalesce(sum(s.latency_ms_sum) FILTER (WHERE s.day <= t.as_of - 7), 0)::bigint AS before7_latency_ms_sum, coalesce(sum(s.invocations) FILTER (WHERE s.day <= t.as_of - 30), 0)::bigint AS before30_invocations, coalesce(sum(s.successes) FILTER (WHERE s.day <= t.as_of - 30), 0)::bigint AS before30_successes, coalesce(sum(s.errors) FILTER (WHERE s.day <= t.as_of - 30), 0)::bigint AS before30_errors, coalesce(sum(s.rejections) FILTER (WHERE s.day <= t.as_of - 30), 0)::bigint AS before30_rejections, coalesce(sum(s.latency_ms_sum) FILTER (WHERE s.day <= t.as_of - 30), 0)::bigint AS before30_latency_ms_sum, coalesce(sum(s.invocations) FILTER (WHERE s.day <= t.as_of - 90), 0)::bigint AS before90_invocations, coalesce(sum(s.successes) FILTER (WHERE s.day <= t.as_of - 90), 0)::bigint AS before90_successes, coalesce(sum(s.errors) FILTER (WHERE s.day <= t.as_of - 90), 0)::bigint AS before90_errors, coalesce(sum(s.rejections) FILTER (WHERE s.day <= t.as_of - 90), 0)::bigint AS before90_rejections, coalesce(sum(s.latency_ms_sum) FILTER (WHERE s.day <= t.as_of - 90), 0)::bigint AS before90_latency_ms_sum
       FROM app_totals t LEFT JOIN app_daily_stats s ON s.app_id = t.app_id GROUP BY t.app_id, t.as_of`,
    ),
  );
  // Every app has its totals (the catalog lists apps from them).
  const { rows } = await db.query<{ missing: number }>(
    'SELECT count(*)::int AS missing FROM apps a LEFT JOIN app_totals t ON t.app_id = a.id WHERE t.app_id IS NULL',
  );
  expect(rows[0]!.missing).toBe(0);
}
