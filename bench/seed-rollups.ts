// What the analytics and scale benches' seeding shares: the bulk-load settings, and once the
// invocations are in, their primary key and index and every analytics rollup computed from them.
import type pg from 'pg';

/** One timed seeding statement (each bench logs and keeps its own figures). */
export type SeedStep = (label: string, sql: string, params?: unknown[]) => Promise<void>;

/** Bulk load: no reference checks or triggers (the rollups are computed afterwards), indexes built afterwards, a fixed seed. */
export async function startBulkLoad(client: pg.Client): Promise<void> {
  await client.query("SET session_replication_role = 'replica'");
  await client.query("SET maintenance_work_mem = '1GB'");
  // Enough memory that the rollups' GROUP BY and DISTINCT over 100M rows sort in few runs.
  await client.query("SET work_mem = '1GB'");
  await client.query('SET synchronous_commit = off');
  await client.query('SELECT setseed(0.42)');
}

/** The invocations' primary key and index rebuilt, the rollups computed from every invocation, then VACUUM (ANALYZE). */
export async function finishInvocationsAndRollups(step: SeedStep): Promise<void> {
  await step('primary key', 'ALTER TABLE invocations ADD CONSTRAINT invocations_pkey PRIMARY KEY (id, created_at)');
  await step('index invocations_app_created', 'CREATE INDEX invocations_app_created ON invocations (app_id, created_at DESC, id DESC)');
  const day = "(created_at AT TIME ZONE 'UTC')::date";
  await step(
    'app_daily_stats',
    `INSERT INTO app_daily_stats (app_id, day, invocations, successes, errors, latency_ms_sum, input_tokens, output_tokens, revenue_cents, last_used_at)
     SELECT app_id, ${day}, count(*), count(*) FILTER (WHERE status = 'success'), count(*) FILTER (WHERE status = 'error'),
            sum(latency_ms), sum(input_tokens), sum(output_tokens), sum(price_cents), max(created_at)
     FROM invocations GROUP BY 1, 2 ORDER BY 1, 2`,
  );
  // The dashboard's and the catalog's rollups of the rollups (migration 0060), as its backfill computes them.
  await step(
    'owner_daily_stats',
    `INSERT INTO owner_daily_stats (owner_id, day, invocations, successes, errors, rejections, latency_ms_sum, input_tokens, output_tokens, revenue_cents, fee_cents, model_cost_micros)
     SELECT a.owner_id, s.day, sum(s.invocations), sum(s.successes), sum(s.errors), sum(s.rejections), sum(s.latency_ms_sum), sum(s.input_tokens), sum(s.output_tokens), sum(s.revenue_cents), sum(s.fee_cents), sum(s.model_cost_micros)
     FROM app_daily_stats s JOIN apps a ON a.id = s.app_id WHERE a.deleted_at IS NULL GROUP BY 1, 2`,
  );
  await step(
    'app_totals',
    `INSERT INTO app_totals (app_id, as_of, last_used_at, invocations, successes, errors, rejections, latency_ms_sum, before7_invocations, before7_successes, before7_errors, before7_rejections, before7_latency_ms_sum, before30_invocations, before30_successes, before30_errors, before30_rejections, before30_latency_ms_sum, before90_invocations, before90_successes, before90_errors, before90_rejections, before90_latency_ms_sum)
     SELECT a.id, (now() AT TIME ZONE 'UTC')::date, max(s.last_used_at), coalesce(sum(s.invocations), 0), coalesce(sum(s.successes), 0), coalesce(sum(s.errors), 0), coalesce(sum(s.rejections), 0), coalesce(sum(s.latency_ms_sum), 0),
            coalesce(sum(s.invocations) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 7), 0), coalesce(sum(s.successes) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 7), 0), coalesce(sum(s.errors) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 7), 0), coalesce(sum(s.rejections) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 7), 0), coalesce(sum(s.latency_ms_sum) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 7), 0), coalesce(sum(s.invocations) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 30), 0), coalesce(sum(s.successes) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 30), 0), coalesce(sum(s.errors) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 30), 0), coalesce(sum(s.rejections) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 30), 0), coalesce(sum(s.latency_ms_sum) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 30), 0), coalesce(sum(s.invocations) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 90), 0), coalesce(sum(s.successes) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 90), 0), coalesce(sum(s.errors) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 90), 0), coalesce(sum(s.rejections) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 90), 0), coalesce(sum(s.latency_ms_sum) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 90), 0)
     FROM apps a LEFT JOIN app_daily_stats s ON s.app_id = a.id GROUP BY a.id`,
  );
  await step(
    'app_daily_errors',
    `INSERT INTO app_daily_errors (app_id, day, error_type, count)
     SELECT app_id, ${day}, error_type, count(*) FROM invocations WHERE status = 'error' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
  );
  await step(
    'owner_daily_errors',
    `INSERT INTO owner_daily_errors (owner_id, day, error_type, count)
     SELECT a.owner_id, e.day, e.error_type, sum(e.count) FROM app_daily_errors e JOIN apps a ON a.id = e.app_id WHERE a.deleted_at IS NULL GROUP BY 1, 2, 3`,
  );
  // In key order (here and below): the primary key's B-tree is then filled page after page instead
  // of at random places, which at 100M invocations (about 90M rows here) is the seeding's slowest step.
  await step(
    'app_daily_users',
    `INSERT INTO app_daily_users (app_id, day, end_user) SELECT DISTINCT app_id, ${day}, end_user FROM invocations WHERE end_user <> '' ORDER BY 1, 2, 3`,
  );
  await step(
    'app_end_users',
    'INSERT INTO app_end_users (app_id, end_user, last_day) SELECT app_id, end_user, max(day) FROM app_daily_users GROUP BY 1, 2 ORDER BY 1, 2',
  );
  await step(
    'owner_end_users',
    `INSERT INTO owner_end_users (owner_id, end_user, last_day)
     SELECT a.owner_id, u.end_user, max(u.last_day) FROM app_end_users u JOIN apps a ON a.id = u.app_id GROUP BY 1, 2 ORDER BY 1, 2`,
  );
  await step('vacuum analyze', 'VACUUM (ANALYZE)');
}
