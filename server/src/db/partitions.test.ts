// The call history partitioned by month (migration 0043, decision 0105), on both databases: an
// existing database migrates in place with its rows in the old table, now the first partition;
// partitions are made ahead; RETENTION_DAYS drops whole old partitions and leaves the rollups; the
// key (id, created_at) still refuses a second row for one call.
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../test-support/database.ts';
import { listMigrations, migrate } from './migrate.ts';
import { keepHistoryPartitions } from './partitions.ts';

const MIGRATIONS = path.join(import.meta.dirname, 'migrations');
const UNDER_TEST = '0043_partitioned_history.sql';
const DAY_MS = 86_400_000;

let database: TestDatabase;
let ownerId: string;
let appId: string;
const oldIds: string[] = [];

beforeAll(async () => {
  const before = mkdtempSync(path.join(tmpdir(), 'tollbooth-migrations-'));
  for (const { name } of listMigrations(MIGRATIONS)) if (name < UNDER_TEST) copyFileSync(path.join(MIGRATIONS, name), path.join(before, name));
  database = await createTestDatabase({ migrationsDir: before });
  const { db } = database;
  ownerId = (await db.query<{ id: string }>("INSERT INTO users (issuer, subject) VALUES ('https://issuer.test', 'part-owner') RETURNING id")).rows[0]!.id;
  appId = (await db.query<{ id: string }>("INSERT INTO apps (owner_id, name, slug, type) VALUES ($1, 'Part', 'part', 'prompt') RETURNING id", [ownerId]))
    .rows[0]!.id;
  // Calls recorded before the migration: a year ago, a month ago, today.
  for (const daysAgo of [400, 30, 0]) {
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO invocations (app_id, caller_id, status, price_cents, created_at) VALUES ($1, $2, 'success', 7, now() - make_interval(days => $3)) RETURNING id`,
      [appId, ownerId, daysAgo],
    );
    oldIds.push(rows[0]!.id);
  }
  await db.query(
    `INSERT INTO test_runs (user_id, app_id, model, provider, status, created_at) VALUES ($1, $2, 'm', 'p', 'success', now() - interval '400 days')`,
    [ownerId, appId],
  );
  await db.query("INSERT INTO app_daily_stats (app_id, day, invocations) VALUES ($1, (now() - interval '400 days')::date, 1)", [appId]);
  expect((await migrate(database.db))[0]).toBe(UNDER_TEST);
});
afterAll(() => database?.cleanup());

const partitions = async (table: string) =>
  (
    await database.db.query<{ name: string; ends: string | null }>(
      `SELECT c.relname AS name, h.ends::text AS ends FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       LEFT JOIN history_partitions h ON h.name = c.relname WHERE i.inhparent = $1::regclass ORDER BY h.ends NULLS LAST`,
      [table],
    )
  ).rows;

describe('migration 0043_partitioned_history.sql', () => {
  it('makes invocations and test runs partitioned tables whose first partition is the old table, rows and all', async () => {
    const { db } = database;
    for (const table of ['invocations', 'test_runs']) {
      const { rows } = await db.query<{ kind: string }>('SELECT relkind::text AS kind FROM pg_class WHERE oid = $1::regclass', [table]);
      expect(rows[0]!.kind).toBe('p');
      const names = (await partitions(table)).map((partition) => partition.name);
      expect(names[0]).toBe(`${table}_before_partitioning`);
      expect(names).toContain(`${table}_default`);
      // This month and two ahead, at least.
      expect(names.length).toBeGreaterThanOrEqual(5);
    }
    const { rows } = await db.query<{ id: string; partition: string }>('SELECT id, tableoid::regclass::text AS partition FROM invocations ORDER BY created_at');
    expect(rows.map((row) => row.id)).toEqual(oldIds);
    expect(new Set(rows.map((row) => row.partition))).toEqual(new Set(['invocations_before_partitioning']));
  });

  it('records new calls in the month partitions, and still refuses a second row for one call', async () => {
    const { db } = database;
    const at = new Date(Date.now() + 3 * DAY_MS).toISOString();
    const { rows } = await db.query<{ id: string; partition: string }>(
      `INSERT INTO invocations (app_id, caller_id, status, created_at) VALUES ($1, $2, 'success', $3) RETURNING id, tableoid::regclass::text AS partition`,
      [appId, ownerId, at],
    );
    expect(rows[0]!.partition).toMatch(/^invocations_p\d{8}$/);
    await expect(
      db.query(`INSERT INTO invocations (id, app_id, caller_id, status, created_at) VALUES ($1, $2, $3, 'success', $4)`, [rows[0]!.id, appId, ownerId, at]),
    ).rejects.toMatchObject({ code: '23505' });
    // The references are still checked through the parent (migration 0041's statement trigger).
    await expect(
      db.query(`INSERT INTO invocations (app_id, caller_id, status) VALUES ('00000000-0000-4000-8000-000000000000', $1, 'success')`, [ownerId]),
    ).rejects.toMatchObject({ code: '23503' });
  });
});

describe('keepHistoryPartitions', () => {
  it('makes the months ahead once, however often it runs', async () => {
    const { db } = database;
    const later = new Date(Date.now() + 200 * DAY_MS);
    const first = await keepHistoryPartitions(db, { retentionDays: null, now: later });
    expect(first.created).toBeGreaterThanOrEqual(12);
    expect(first.dropped).toEqual([]);
    expect(await keepHistoryPartitions(db, { retentionDays: null, now: later })).toEqual({ created: 0, dropped: [] });
    const last = (await partitions('invocations')).filter((partition) => partition.ends !== null).at(-1)!;
    expect(new Date(last.ends!).getTime()).toBeGreaterThanOrEqual(later.getTime() + 55 * DAY_MS);
  });

  it('with RETENTION_DAYS drops the partitions wholly older than it and keeps the rollups', async () => {
    const { db } = database;
    // 100 days: the old table (everything up to the cut-over) is not yet wholly older; nothing goes.
    expect((await keepHistoryPartitions(db, { retentionDays: 100 })).dropped).toEqual([]);
    // A year on, with 100 days kept, the old table and the first months go.
    const { dropped } = await keepHistoryPartitions(db, { retentionDays: 100, now: new Date(Date.now() + 365 * DAY_MS) });
    expect(dropped).toContain('invocations_before_partitioning');
    expect(dropped).toContain('test_runs_before_partitioning');
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM invocations WHERE id = ANY($1::uuid[])', [oldIds]);
    expect(rows[0]!.n).toBe(0);
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM test_runs')).rows[0]!.n).toBe(0);
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM app_daily_stats WHERE app_id = $1', [appId])).rows[0]!.n).toBe(1);
    // A call recorded now still finds a partition (the default one, its month being gone here).
    await db.query(`INSERT INTO invocations (app_id, caller_id, status) VALUES ($1, $2, 'success')`, [appId, ownerId]);
  });
});
