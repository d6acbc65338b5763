// Applies the ordered SQL files in ./migrations once each, under an advisory lock so several
// processes starting together against one PostgreSQL apply each file exactly once: the first to
// take the lock applies every pending file in one transaction, the others wait for its commit and
// find nothing to do. A database that recorded a migration this code does not know (a newer
// version ran on it) is refused before anything is written (decision 0081).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Database, Queryable } from './client.ts';

const MIGRATIONS_DIR = path.join(import.meta.dirname, 'migrations');
const MIGRATION_LOCK = 7_243_001;
/**
 * Migrations that were renamed, by their new name, with the name a database may have recorded them
 * under: one that applied the old name has applied the new one, which is then recorded beside it.
 * The old row stays, so an earlier version started on the same database does not apply it again.
 * (0017 was once used by two files.)
 */
const RENAMED: Readonly<Record<string, string>> = { '0015_demo_calls.sql': '0017_demo_calls.sql' };

export function listMigrations(dir = MIGRATIONS_DIR): { name: string; sql: string }[] {
  return readdirSync(dir)
    .filter((file) => /^\d{4}_[\w-]+\.sql$/.test(file))
    .sort()
    .map((name) => ({ name, sql: readFileSync(path.join(dir, name), 'utf8') }));
}

/** The migration that partitions the call history (decision 0105). */
const PARTITIONING = '0043_partitioned_history.sql';

/**
 * Before PARTITIONING's transaction, on PostgreSQL: what lets it attach each old table as a
 * partition at once, made without blocking the calls being recorded meanwhile. A CHECK that every
 * row is older than the cut-over (added NOT VALID, an instant; then validated, a scan that lets
 * writes go on) and a unique index on (id, created_at), built CONCURRENTLY. The cut-over is two
 * days ahead (UTC midnight): rows recorded until then still go to the old table. Done once; a table
 * already partitioned, or a database where PARTITIONING ran, is left alone.
 */
export async function prepareToPartition(db: Database): Promise<void> {
  for (const table of ['invocations', 'test_runs']) {
    const { rows } = await db.query<{ kind: string | null }>(`SELECT (SELECT c.relkind::text FROM pg_class c WHERE c.oid = to_regclass($1)) AS kind`, [table]);
    if (rows[0]?.kind !== 'r') continue;
    const check = `${table}_before_partitioning`;
    const index = `${table}_id_created_at`;
    await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      const { rows: present } = await tx.query('SELECT 1 FROM pg_constraint WHERE conrelid = $1::regclass AND conname = $2', [table, check]);
      if (present.length > 0) return;
      const { rows: cut } = await tx.query<{ at: string }>(
        `SELECT to_char((date_trunc('day', now() AT TIME ZONE 'UTC') + interval '2 days'), 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS at`,
      );
      await tx.query(`ALTER TABLE ${table} ADD CONSTRAINT ${check} CHECK (created_at < '${cut[0]!.at}'::timestamptz) NOT VALID`);
    });
    await db.query(`ALTER TABLE ${table} VALIDATE CONSTRAINT ${check}`);
    const { rows: invalid } = await db.query(`SELECT 1 FROM pg_index WHERE indexrelid = to_regclass($1) AND NOT indisvalid`, [index]);
    // Left half-built by a process that stopped: built again.
    if (invalid.length > 0) await db.query(`DROP INDEX CONCURRENTLY IF EXISTS ${index}`);
    await db.query(`CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS ${index} ON ${table} (id, created_at)`);
  }
}

/** The database is on a schema this code does not know: a newer version migrated it. */
export class NewerSchemaError extends Error {
  constructor(public readonly unknown: string[]) {
    super(
      `the database's schema is newer than this version of Tollbooth: it has ${unknown.length === 1 ? 'migration' : 'migrations'} ${unknown.join(', ')}, which this version does not know; run the version that applied ${unknown.length === 1 ? 'it' : 'them'}, or restore a backup taken before`,
    );
    this.name = 'NewerSchemaError';
  }
}

/** Names a database may have recorded that this code does not know (a newer version's migrations). */
function unknownMigrations(applied: Iterable<string>, migrations: { name: string }[]): string[] {
  const known = new Set([...migrations.map((migration) => migration.name), ...Object.values(RENAMED)]);
  return [...applied].filter((name) => !known.has(name)).sort();
}

/** What the database lacks and what it has that this code does not know, read without the lock and without writing. */
export async function readSchemaState(db: Queryable, dir = MIGRATIONS_DIR): Promise<{ pending: string[]; unknown: string[] }> {
  const migrations = listMigrations(dir);
  const { rows: table } = await db.query<{ present: boolean }>(`SELECT to_regclass('schema_migrations') IS NOT NULL AS present`);
  const applied = table[0]?.present
    ? new Set((await db.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((row) => row.name))
    : new Set<string>();
  const pending = migrations.filter(({ name }) => !applied.has(name) && !(RENAMED[name] && applied.has(RENAMED[name]))).map(({ name }) => name);
  return { pending, unknown: unknownMigrations(applied, migrations) };
}

/**
 * Applies every pending migration and returns the names of those this call applied (none when
 * another process applied them while this one waited for the lock). Throws NewerSchemaError, having
 * written nothing, when the database recorded a migration this code does not know.
 */
export async function migrate(db: Database, dir = MIGRATIONS_DIR): Promise<string[]> {
  const migrations = listMigrations(dir);
  if (db.kind === 'postgres' && migrations.some((migration) => migration.name === PARTITIONING)) await prepareToPartition(db);
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const { rows } = await tx.query<{ name: string }>('SELECT name FROM schema_migrations');
    const applied = new Set(rows.map((row) => row.name));
    const unknown = unknownMigrations(applied, migrations);
    // Thrown inside the transaction: the table created above is rolled back with it.
    if (unknown.length > 0) throw new NewerSchemaError(unknown);
    const done: string[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.name)) continue;
      const formerName = RENAMED[migration.name];
      if (formerName && applied.has(formerName)) {
        await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [migration.name]);
        continue;
      }
      // Multi-statement files go through the simple query protocol (no parameters).
      await tx.exec(migration.sql);
      await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [migration.name]);
      done.push(migration.name);
    }
    return done;
  });
}
