// Times migration 0043 (the call history partitioned by month, decision 0105) on an existing
// PostgreSQL database of N invocations (default ten million, over a year), while calls keep being
// recorded: a writer inserts one invocation at a time through the whole migration and reports its
// slowest insert, i.e. how long the migration held recording up. Prints the online preparation
// (CHECK validated and the (id, created_at) index built concurrently: writes go on) and the
// migration's own transaction (the lock) apart.
//
//   node --import tsx bench/scale/migration.ts [--invocations 10000000] [--keep]
//   env: DATABASE_URL (a PostgreSQL server URL, default postgres://postgres@127.0.0.1:5432/postgres)
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openPostgres } from '../../server/src/db/client.ts';
import { listMigrations, migrate, prepareToPartition } from '../../server/src/db/migrate.ts';

const { values: args } = parseArgs({ options: { invocations: { type: 'string', default: '10000000' }, keep: { type: 'boolean', default: false } } });
const N = Number(args.invocations);
if (!Number.isInteger(N) || N <= 0) throw new Error('--invocations must be a positive integer');
const SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = `tb_bench_migration_${Date.now().toString(36)}`;
const UNDER_TEST = '0043_partitioned_history.sql';
const MIGRATIONS = path.join(import.meta.dirname, '../../server/src/db/migrations');
const log = (message: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${message}`);
const url = (() => {
  const parsed = new URL(SERVER_URL);
  parsed.pathname = `/${DB_NAME}`;
  return parsed.toString();
})();
const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);

async function admin(sql: string) {
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function main() {
  await admin(`CREATE DATABASE ${DB_NAME}`);
  try {
    const before = mkdtempSync(path.join(tmpdir(), 'tollbooth-migrations-'));
    for (const { name } of listMigrations(MIGRATIONS)) if (name < UNDER_TEST) copyFileSync(path.join(MIGRATIONS, name), path.join(before, name));
    const db = await openPostgres(url, 4);
    await migrate(db, before);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query("SET session_replication_role = 'replica'");
    await client.query("SET maintenance_work_mem = '512MB'");
    await client.query('SET synchronous_commit = off');
    const owner = (await client.query<{ id: string }>("INSERT INTO users (issuer, subject) VALUES ('https://issuer.bench', 'owner') RETURNING id")).rows[0]!.id;
    await client.query(`INSERT INTO apps (owner_id, name, slug, type) SELECT $1, 'App ' || g, 'app-' || g, 'prompt' FROM generate_series(1, 100) g`, [owner]);
    let started = performance.now();
    await client.query('ALTER TABLE invocations DROP CONSTRAINT invocations_pkey');
    await client.query('DROP INDEX invocations_app_created');
    await client.query(
      `INSERT INTO invocations (app_id, caller_id, end_user, status, latency_ms, input_tokens, output_tokens, price_cents, created_at)
       SELECT a.ids[1 + g % 100], $2, 'user-' || (g % 5000), 'success', 300, 100, 50, 1, now() - interval '365 days' * random()
       FROM generate_series(1, $1::int) g, (SELECT array_agg(id) AS ids FROM apps) a`,
      [N, owner],
    );
    await client.query('ALTER TABLE invocations ADD PRIMARY KEY (id)');
    await client.query('CREATE INDEX invocations_app_created ON invocations (app_id, created_at DESC, id DESC)');
    await client.query('VACUUM ANALYZE invocations');
    const size = (await client.query<{ size: string }>("SELECT pg_size_pretty(pg_total_relation_size('invocations')) AS size")).rows[0]!.size;
    log(`seeded ${N} invocations in ${seconds(started)} s (${size} with indexes)`);
    await client.end();

    // One call recorded at a time, all through the migration.
    const appId = (await db.query<{ id: string }>('SELECT id FROM apps LIMIT 1')).rows[0]!.id;
    let writing = true;
    let slowest = 0;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        const t = performance.now();
        await db.query(`INSERT INTO invocations (app_id, caller_id, status) VALUES ($1, $2, 'success')`, [appId, owner]);
        slowest = Math.max(slowest, performance.now() - t);
        written += 1;
      }
    })();
    started = performance.now();
    const timing = await openPostgres(url, 2);
    const pending = await migrateTimed(timing);
    log(`migrated ${pending.join(', ')}: online preparation ${preparationSeconds} s, migration transaction ${transactionSeconds} s`);
    log(`total ${seconds(started)} s; ${written} calls recorded meanwhile, the slowest insert took ${(slowest / 1000).toFixed(2)} s`);
    writing = false;
    await writer;
    const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM invocations_before_partitioning');
    log(`rows in the old table, now a partition: ${rows[0]!.n}`);
    console.log(
      `| ${N.toLocaleString('en-US')} | ${size} | ${preparationSeconds} s | ${transactionSeconds} s | ${(slowest / 1000).toFixed(2)} s | ${written} |\n` +
        `re-run: node --import tsx bench/scale/migration.ts --invocations ${N}`,
    );
    await timing.close();
    await db.close();
  } finally {
    if (!args.keep) await admin(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  }
}

let preparationSeconds = '';
let transactionSeconds = '';
/** migrate() with its two phases timed apart: the preparation (no lock held), then the transaction (its second run of the preparation finds it done). */
async function migrateTimed(db: Awaited<ReturnType<typeof openPostgres>>): Promise<string[]> {
  const t0 = performance.now();
  await prepareToPartition(db);
  const t1 = performance.now();
  const applied = await migrate(db);
  preparationSeconds = ((t1 - t0) / 1000).toFixed(1);
  transactionSeconds = ((performance.now() - t1) / 1000).toFixed(2);
  return applied;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
