// Migration 0017_outcomes.sql on a database with calls recorded the old way (every unanswered call
// an "error", its latency in the day's sum): afterwards every rollup equals the recomputation from
// the invocations with outcomes, exactly, and old calls are classified as new ones are.
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listMigrations, migrate } from '../db/migrate.ts';
import { REJECTED_ERROR_TYPES } from '../platform/call-outcomes.ts';
import { createTestDatabase, type TestDatabase } from '../test-support/database.ts';
import { expectRollupsToMatchInvocations } from '../test-support/rollup-checks.ts';

const MIGRATIONS = path.join(import.meta.dirname, '..', 'db', 'migrations');
const UNDER_TEST = '0017_outcomes.sql';

let database: TestDatabase;
beforeAll(async () => {
  const before = mkdtempSync(path.join(tmpdir(), 'tollbooth-migrations-'));
  for (const { name } of listMigrations(MIGRATIONS)) if (name < UNDER_TEST) copyFileSync(path.join(MIGRATIONS, name), path.join(before, name));
  database = await createTestDatabase({ migrationsDir: before });
});
afterAll(async () => {
  await database?.cleanup();
});

describe('migration 0017_outcomes.sql', () => {
  it('classifies exactly the error types the gateway rejects', () => {
    const sql = readFileSync(path.join(MIGRATIONS, UNDER_TEST), 'utf8');
    const list = /SELECT error_type IN \(([^)]*)\)/.exec(sql)?.[1] ?? '';
    const types = [...list.matchAll(/'([a-z_]+)'/g)].map((match) => match[1]);
    // wrong_route (issue 25) and not_acceptable (issue 26) were first recorded after 0017: no old call carries them, so the backfill needs no entry for them.
    const recordedSince = new Set(['wrong_route', 'not_acceptable']);
    expect(types.sort()).toEqual([...REJECTED_ERROR_TYPES].filter((type) => !recordedSince.has(type)).sort());
  });

  it('backfills outcomes and moves rejected calls out of errors and response times, exactly', async () => {
    const { db } = database;
    const { rows: owners } = await db.query<{ id: string }>(
      "INSERT INTO users (issuer, subject) VALUES ('https://issuer.test', 'old-owner-1'), ('https://issuer.test', 'old-owner-2') RETURNING id",
    );
    const { rows: apps } = await db.query<{ id: string }>(
      `INSERT INTO apps (owner_id, name, slug, type) VALUES ($1, 'Old A', 'old-a', 'prompt'), ($1, 'Old B', 'old-b', 'prompt'), ($2, 'Old C', 'old-c', 'workflow')
       RETURNING id`,
      [owners[0]!.id, owners[1]!.id],
    );
    // Calls over three days, in every outcome, as the old gateway recorded them.
    const errorTypes = [
      '',
      'provider_error',
      'provider_timeout',
      'invalid_schema',
      'invalid_param',
      'unauthorized',
      'not_found',
      'rate_limited',
      'client_disconnected',
    ];
    let n = 0;
    for (const app of apps) {
      for (let day = 0; day < 3; day++) {
        for (const errorType of [null, ...errorTypes]) {
          n++;
          await db.query(
            `INSERT INTO invocations (app_id, end_user, status, error_type, latency_ms, input_tokens, output_tokens, price_cents, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() - make_interval(days => $9::int))`,
            [
              app.id,
              n % 3 === 0 ? '' : `user-${n % 4}`,
              errorType === null ? 'success' : 'error',
              errorType ?? '',
              100 + n * 7,
              errorType === null ? 10 : 0,
              errorType === null ? 5 : 0,
              errorType === null ? 25 : 0,
              day,
            ],
          );
        }
      }
    }
    // The old rollups: every unanswered call an error, every latency summed (0007's backfill, per type).
    await db.exec(`
      INSERT INTO app_daily_stats (app_id, day, invocations, successes, errors, latency_ms_sum, input_tokens, output_tokens, revenue_cents, last_used_at)
      SELECT app_id, (created_at AT TIME ZONE 'UTC')::date, count(*), count(*) FILTER (WHERE status = 'success'), count(*) FILTER (WHERE status = 'error'),
             sum(latency_ms), sum(input_tokens), sum(output_tokens), sum(price_cents), max(created_at)
      FROM invocations GROUP BY 1, 2;
      INSERT INTO app_daily_users (app_id, day, end_user)
      SELECT DISTINCT app_id, (created_at AT TIME ZONE 'UTC')::date, end_user FROM invocations WHERE end_user <> '';
      INSERT INTO app_daily_errors (app_id, day, error_type, count)
      SELECT app_id, (created_at AT TIME ZONE 'UTC')::date, error_type, count(*) FROM invocations WHERE status = 'error' GROUP BY 1, 2, 3;
    `);
    // A deleted app's errors leave its owner's totals (0007's trigger).
    await db.query('UPDATE apps SET deleted_at = now() WHERE id = $1', [apps[1]!.id]);

    // The migration under test first; any later ones (0018 on) after it.
    expect((await migrate(db, MIGRATIONS))[0]).toBe(UNDER_TEST);
    await expectRollupsToMatchInvocations(db);

    const { rows } = await db.query<{ outcome: string; count: number }>('SELECT outcome, count(*)::int AS count FROM invocations GROUP BY 1 ORDER BY 1');
    // Per app and day: 1 success, 4 failed ('', provider_error, provider_timeout, invalid_schema), 5 rejected.
    expect(rows).toEqual([
      { outcome: 'failed', count: 36 },
      { outcome: 'rejected', count: 45 },
      { outcome: 'success', count: 9 },
    ]);

    // After the migration, restoring and deleting an app moves its outcomes with it.
    await db.query('UPDATE apps SET deleted_at = NULL WHERE id = $1', [apps[1]!.id]);
    await expectRollupsToMatchInvocations(db);
  });
});
