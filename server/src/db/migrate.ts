// Applies the ordered SQL files in ./migrations once each, under an advisory lock so several
// processes starting together against one PostgreSQL apply each file exactly once.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Database } from './client.ts';

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

/** Returns the names of the migrations applied by this call. */
export async function migrate(db: Database, dir = MIGRATIONS_DIR): Promise<string[]> {
  const migrations = listMigrations(dir);
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const { rows } = await tx.query<{ name: string }>('SELECT name FROM schema_migrations');
    const applied = new Set(rows.map((row) => row.name));
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
