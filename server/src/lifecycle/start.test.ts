// Bad input at start (issue 57): missing or weak secrets in production mode, a DATABASE_URL that
// cannot be reached, a database on a newer schema than the code, pending migrations with
// MIGRATE_ON_START=off, and a second process on one embedded database each refuse to start with
// one line naming the variable, and write nothing: no data directory, no key, no migration.
// Real processes of src/main.ts; the schema cases run on the suite's database (PGlite: a DATA_DIR
// of the test's own; PostgreSQL: a database of its own).
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Database, openPglite } from '../db/client.ts';
import { listMigrations, migrate } from '../db/migrate.ts';
import { isWeakSecretKey, loadConfig } from '../platform/config.ts';
import { createTestDatabase, type TestDatabase } from '../test-support/database.ts';
import { runServerCommand } from '../test-support/server-process.ts';

const STRONG_KEY = '5f0c8e2b9a7d4c1e3b6f8a0d2c4e6b8a1d3f5c7e9b0a2c4d6e8f1a3b5c7d9e0f';
const freshDir = () => path.join(mkdtempSync(path.join(tmpdir(), 'tollbooth-start-')), 'data');
/** The refusal's lines, as the operator reads them. */
const refusals = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('Tollbooth '));

describe('production mode (NODE_ENV=production)', () => {
  it('refuses a start without SECRET_KEY and PUBLIC_URL, one line naming each, and writes nothing', async () => {
    const dataDir = freshDir();
    const { code, stderr } = await runServerCommand([], { NODE_ENV: 'production', DATA_DIR: dataDir, SECRET_KEY: undefined, PUBLIC_URL: undefined });
    expect(code).toBe(1);
    const lines = refusals(stderr);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^Tollbooth did not start: SECRET_KEY is required in production mode/);
    expect(lines[1]).toMatch(/^Tollbooth did not start: PUBLIC_URL is required in production mode/);
    expect(existsSync(dataDir)).toBe(false);
  }, 120_000);

  it('refuses a weak SECRET_KEY and Stripe without its webhook secret', async () => {
    const dataDir = freshDir();
    const { code, stderr } = await runServerCommand([], {
      NODE_ENV: 'production',
      DATA_DIR: dataDir,
      SECRET_KEY: '0123456789abcdef'.repeat(4),
      PUBLIC_URL: 'https://tollbooth.example.com',
      STRIPE_SECRET_KEY: 'sk_test_x',
      STRIPE_WEBHOOK_SECRET: undefined,
    });
    expect(code).toBe(1);
    expect(refusals(stderr)).toEqual([
      expect.stringMatching(/^Tollbooth did not start: SECRET_KEY is too weak in production mode/),
      expect.stringMatching(
        /^Tollbooth did not start: STRIPE_WEBHOOK_SECRET is required in production mode \(NODE_ENV=production\) when STRIPE_SECRET_KEY is set/,
      ),
    ]);
    expect(existsSync(dataDir)).toBe(false);
  }, 120_000);

  it('is only on with NODE_ENV=production, and takes a random key', () => {
    const env = { DATA_DIR: freshDir(), MODEL_TABLE: '{}' };
    expect(loadConfig({ ...env, SECRET_KEY: 'a'.repeat(64) }).production).toBe(false);
    expect(loadConfig({ ...env, NODE_ENV: 'production', SECRET_KEY: STRONG_KEY, PUBLIC_URL: 'https://t.example.com' }).production).toBe(true);
    expect(isWeakSecretKey(Buffer.from(STRONG_KEY, 'hex'))).toBe(false);
    expect(isWeakSecretKey(Buffer.from('ab'.repeat(32), 'hex'))).toBe(true);
    expect(() => loadConfig({ ...env, SHUTDOWN_GRACE_SECONDS: '30', SHUTDOWN_TIMEOUT_SECONDS: '30' })).toThrow(
      /SHUTDOWN_TIMEOUT_SECONDS must be longer than SHUTDOWN_GRACE_SECONDS/,
    );
  });
});

describe('a database that cannot be used', () => {
  it('refuses a DATABASE_URL that cannot be reached, naming it with the password hidden', async () => {
    const dataDir = freshDir();
    const { code, stderr } = await runServerCommand([], { DATA_DIR: dataDir, DATABASE_URL: 'postgres://tollbooth:hunter2@127.0.0.1:1/tollbooth' });
    expect(code).toBe(1);
    const lines = refusals(stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Tollbooth did not start: DATABASE_URL: cannot reach postgres:\/\/tollbooth:\*\*\*@127\.0\.0\.1:1\/tollbooth: .*ECONNREFUSED/);
    expect(stderr).not.toContain('hunter2');
    expect(existsSync(dataDir)).toBe(false);
  }, 120_000);

  it.skipIf(!process.env.DATABASE_URL)(
    'refuses a DATABASE_READ_URL that cannot be reached, naming it (PostgreSQL)',
    async () => {
      const dataDir = freshDir();
      const { code, stderr } = await runServerCommand([], {
        DATA_DIR: dataDir,
        DATABASE_URL: process.env.DATABASE_URL!,
        DATABASE_READ_URL: 'postgres://reader:s3cret@127.0.0.1:1/tollbooth',
      });
      expect(code).toBe(1);
      const lines = refusals(stderr);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^Tollbooth did not start: DATABASE_READ_URL: cannot reach postgres:\/\/reader:\*\*\*@127\.0\.0\.1:1\/tollbooth: .*ECONNREFUSED/,
      );
      expect(stderr).not.toContain('s3cret');
    },
    120_000,
  );

  it('refuses DATABASE_READ_URL without DATABASE_URL: the embedded database has no replica', async () => {
    const dataDir = freshDir();
    const { code, stderr } = await runServerCommand([], { DATA_DIR: dataDir, DATABASE_READ_URL: 'postgres://reader@127.0.0.1:5433/tollbooth' });
    expect(code).toBe(1);
    expect(stderr).toContain('DATABASE_READ_URL needs DATABASE_URL: the embedded database (PGlite, no DATABASE_URL) has no replica');
    expect(existsSync(dataDir)).toBe(false);
  }, 120_000);

  describe('on the suite database', () => {
    // The database a process of this test starts on: PostgreSQL's test database, or PGlite files in a DATA_DIR of the test's.
    let database: TestDatabase | null = null;
    let dataDir = '';
    let db: Database;
    const env = () => ({ DATA_DIR: dataDir, DATABASE_URL: database?.url ?? undefined });
    const reopen = async () => {
      if (!database) db = await openPglite(dataDir);
    };
    const release = async () => {
      if (!database) await db.close();
    };

    afterAll(async () => {
      await database?.cleanup();
    });

    it('refuses a schema newer than the code, and pending migrations with MIGRATE_ON_START=off, writing nothing', async () => {
      dataDir = freshDir();
      if (process.env.DATABASE_URL) {
        database = await createTestDatabase();
        db = database.db;
      } else {
        await reopen();
        await migrate(db);
      }
      const variable = database ? 'DATABASE_URL' : 'DATA_DIR';
      await db.query("INSERT INTO schema_migrations (name) VALUES ('9999_from_a_newer_version.sql')");
      const count = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations')).rows[0]!.n;
      const before = await count();
      await release();

      const newer = await runServerCommand([], env());
      expect(newer.code).toBe(1);
      expect(refusals(newer.stderr)).toEqual([
        `Tollbooth did not start: ${variable}: the database's schema is newer than this version of Tollbooth: it has migration 9999_from_a_newer_version.sql, which this version does not know; run the version that applied it, or restore a backup taken before`,
      ]);
      const migrateCommand = await runServerCommand(['migrate'], env());
      expect(migrateCommand.code).toBe(1);
      expect(refusals(migrateCommand.stderr)[0]).toMatch(new RegExp(`^Tollbooth migrate: refused: ${variable}: the database's schema is newer`));

      await reopen();
      expect(await count()).toBe(before);
      // The same database without the future migration, and with one of its own missing.
      const [last] = listMigrations().slice(-1);
      await db.query('DELETE FROM schema_migrations WHERE name = ANY($1)', [['9999_from_a_newer_version.sql', last!.name]]);
      await release();
      const pending = await runServerCommand([], { ...env(), MIGRATE_ON_START: 'off' });
      expect(pending.code).toBe(1);
      expect(refusals(pending.stderr)).toEqual([
        `Tollbooth did not start: MIGRATE_ON_START is off and the database lacks 1 migration (${last!.name}): run \`npm run migrate\` (the image: \`node server/dist/main.js migrate\`) first`,
      ]);
      // Nothing written: no generated key, no journal, no lock left behind.
      expect(existsSync(dataDir) ? readdirSync(dataDir).sort() : []).toEqual(database ? [] : ['pglite']);
      await reopen();
      expect(await count()).toBe(before - 2);
      await release();
    }, 300_000);
  });
});
