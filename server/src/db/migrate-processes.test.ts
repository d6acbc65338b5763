// Several processes migrating one new database at once (issue 57, item 4): exactly one applies the
// pending migrations under the advisory lock, the others wait for its commit and apply nothing;
// then a server started with MIGRATE_ON_START=off serves. Real `migrate` commands of src/main.ts,
// so this needs DATABASE_URL (PGlite is one process's database: system.test.ts migrates it from
// three callers at once).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { runServerCommand, startServerProcess, stopServerProcess } from '../test-support/server-process.ts';
import { listMigrations } from './migrate.ts';

describe.runIf(process.env.DATABASE_URL)('migrate from several processes at once', () => {
  const name = `tb_test_${randomBytes(6).toString('hex')}`;
  // Built lazily: a skipped describe's body still runs, without DATABASE_URL.
  const databaseUrl = () => {
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${name}`;
    return url.toString();
  };
  const admin = async <T>(fn: (client: pg.Client) => Promise<T>) => {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  };

  afterAll(() => admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)));

  it('applies every migration once: one process applies them, the others wait and find none', async () => {
    await admin((client) => client.query(`CREATE DATABASE ${name}`));
    const results = await Promise.all(Array.from({ length: 3 }, () => runServerCommand(['migrate'], { DATABASE_URL: databaseUrl() })));
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    const outputs = results.map((result) => result.stdout.trim()).sort();
    const all = listMigrations().map((migration) => migration.name);
    expect(outputs).toEqual([
      `Applied ${all.length} migrations: ${all.join(', ')}`,
      'No pending migrations: the database is up to date.',
      'No pending migrations: the database is up to date.',
    ]);
    const client = new pg.Client({ connectionString: databaseUrl() });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
      expect(rows.map((row) => row.name)).toEqual([...all].sort());
    } finally {
      await client.end();
    }

    // A process told not to migrate starts on the migrated database and is ready.
    const server = await startServerProcess({ DATABASE_URL: databaseUrl(), SECRET_KEY: 'f'.repeat(64), MIGRATE_ON_START: 'off' });
    try {
      const ready = await fetch(`${server.base}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ready', database: 'postgres' });
    } finally {
      await stopServerProcess(server);
    }
  }, 240_000);
});
