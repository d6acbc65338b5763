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
}
