// A fresh, migrated database per test file: in-memory PGlite by default, or a new database on
// the PostgreSQL server named by DATABASE_URL (dropped afterwards), so files never share state.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { inject } from 'vitest';
import { type Database, openPglite, openPostgres } from '../db/client.ts';
import { migrate } from '../db/migrate.ts';

export interface TestDatabase {
  db: Database;
  /** Connection string of the test database, or null for PGlite. */
  url: string | null;
  cleanup(): Promise<void>;
}

/** migrationsDir: apply the migrations of another folder (e.g. only those before a migration under test). */
export async function createTestDatabase({ migrationsDir }: { migrationsDir?: string } = {}): Promise<TestDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    // The run's migrated template (pglite-template.ts) unless the test applies migrations of its own.
    const template = migrationsDir === undefined ? inject('pgliteTemplate') : null;
    const db = await openPglite(null, { loadDataDir: template ? new Blob([readFileSync(template)]) : undefined });
    // A database of its own, as a fresh one would be (the answer journal's directory is named by it).
    if (template) await db.query('UPDATE database_identity SET id = gen_random_uuid()');
    await migrate(db, migrationsDir);
    return { db, url: null, cleanup: () => db.close() };
  }
  const name = `tb_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = await openPostgres(url.toString());
  await migrate(db, migrationsDir);
  return {
    db,
    url: url.toString(),
    async cleanup() {
      await db.close();
      const dropper = new pg.Client({ connectionString: serverUrl });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.end();
    },
  };
}

/**
 * A migrated embedded database in `dataDir` (where a server process started with DATA_DIR=dataDir
 * opens it), made from the run's template: a process then skips initdb and the migrations, seconds
 * of CPU that a busy machine stretches past a start's deadline.
 */
export async function preparePgliteDataDir(dataDir: string): Promise<void> {
  const template = inject('pgliteTemplate');
  if (!template) return;
  mkdirSync(dataDir, { recursive: true });
  const pglite = await PGlite.create(path.join(dataDir, 'pglite'), { loadDataDir: new Blob([readFileSync(template)]) });
  await pglite.query('UPDATE database_identity SET id = gen_random_uuid()');
  await pglite.close();
}
