// A fresh, migrated database per test file: in-memory PGlite by default, or a new database on
// the PostgreSQL server named by DATABASE_URL (dropped afterwards), so files never share state.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
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
    const db = await openPglite(null);
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
