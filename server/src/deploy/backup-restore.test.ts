// The README's backup and restore (issue 57, item 7): `pg_dump --format=custom` of a database with
// paid calls, balances and statements, `pg_restore` into a new database, and every table's rows
// identical there; a server on the restored database answers the same balances and statements.
// PostgreSQL only (DATABASE_URL), with the server's pg_dump and pg_restore (postgresql-client).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../app.ts';
import { openPostgres } from '../db/client.ts';
import { createPaidTestContext, type PaidTestContext } from '../test-support/app.ts';
import { callCompletions } from '../test-support/paid-call.ts';

/** Each table of the public schema with a digest of all its rows, in a stable order. */
async function tableDigests(url: string): Promise<Record<string, { rows: number; digest: string }>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows: tables } = await client.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename");
    const digests: Record<string, { rows: number; digest: string }> = {};
    for (const { name } of tables) {
      const table = pg.escapeIdentifier(name);
      const { rows } = await client.query<{ rows: number; digest: string | null }>(
        `SELECT count(*)::int AS rows, md5(string_agg(t::text, '|' ORDER BY t::text)) AS digest FROM ${table} t`,
      );
      digests[name] = { rows: rows[0]!.rows, digest: rows[0]!.digest ?? '' };
    }
    return digests;
  } finally {
    await client.end();
  }
}

describe.runIf(process.env.DATABASE_URL)('backup with pg_dump, restore with pg_restore', () => {
  let ctx: PaidTestContext;
  const work = mkdtempSync(path.join(tmpdir(), 'tollbooth-backup-'));
  const name = `tb_test_${randomBytes(6).toString('hex')}`;
  // Built lazily: a skipped describe's body still runs, without DATABASE_URL.
  const restoredUrl = () => {
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${name}`;
    return url.toString();
  };
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };

  beforeAll(async () => {
    ctx = await createPaidTestContext();
  }, 60_000);
  afterAll(async () => {
    // Its app was closed by the test already.
    await ctx?.close().catch(() => undefined);
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    rmSync(work, { recursive: true, force: true });
  });

  it('restores every balance, statement and invocation identical', async () => {
    const owner = await ctx.tokenFor('backup-owner');
    const caller = await ctx.tokenFor('backup-caller');
    const { slug } = await ctx.liveApp(owner, { name: 'Backed up', type: 'prompt', visibility: 'public', price_cents: 4 });
    const key = (
      await ctx.app.inject({ method: 'POST', url: '/api/keys/', headers: { authorization: `Bearer ${caller}` }, payload: { name: 'backup' } })
    ).json().key as string;
    await callCompletions(ctx.app, slug, key, 7);
    // Stopped as for an offline backup: every answered call committed, every lease released (a live
    // pg_dump is a consistent snapshot too, but the running process's leases would differ from this copy).
    await ctx.app.close();
    const read = async (app: App, url: string, token: string) =>
      (await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } })).json();
    const month = new Date().toISOString().slice(0, 7);
    const reads = [
      ['/api/billing/balance/', caller],
      ['/api/billing/balance/', owner],
      ['/api/billing/statements/', caller],
      [`/api/billing/statements/${month}/`, caller],
      [`/api/billing/statements/${month}/`, owner],
    ] as const;
    /** What a server on the database answers, read once and stopped (its reads leave the tables as they were). */
    const answersOn = async (url: string) => {
      const db = await openPostgres(url);
      const app = await buildApp({ config: ctx.config, db, logger: false });
      try {
        return await Promise.all(reads.map(([path, token]) => read(app, path, token)));
      } finally {
        await app.close();
        await db.close();
      }
    };

    const file = path.join(work, 'tollbooth.dump');
    execFileSync('pg_dump', ['--format=custom', '--file', file, ctx.database.url!]);
    await admin(`CREATE DATABASE ${name}`);
    execFileSync('pg_restore', ['--no-owner', '--exit-on-error', '--dbname', restoredUrl(), file]);

    const [source, copy] = await Promise.all([tableDigests(ctx.database.url!), tableDigests(restoredUrl())]);
    expect(Object.keys(source).length).toBeGreaterThan(30);
    for (const table of ['ledger_accounts', 'ledger_entries', 'ledger_transactions', 'invocations', 'schema_migrations']) {
      expect(source[table]!.rows, table).toBeGreaterThan(0);
    }
    expect(copy).toEqual(source);
    console.log(
      `backup: pg_dump ${(statSync(file).size / 1024).toFixed(0)} KiB, ${Object.keys(source).length} tables restored identical (${source.invocations!.rows} invocations, ${source.ledger_entries!.rows} ledger entries)`,
    );

    // A server on the restored database answers what one on the original does.
    const [original, fromBackup] = [await answersOn(ctx.database.url!), await answersOn(restoredUrl())];
    expect(original[0].credits_cents).toBe(500 - 7 * 4);
    expect(fromBackup).toEqual(original);
  }, 120_000);
});
