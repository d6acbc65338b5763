// A streaming replica of the test PostgreSQL (DATABASE_URL) on this machine: pg_basebackup of the
// whole cluster into a temporary directory (-R: standby.signal and primary_conninfo written), started
// with the server's own pg_ctl on a free loopback port, as the postgres user when the tests run as
// root (PostgreSQL refuses to run as root). Decision 0130; the primary must allow replication
// connections from 127.0.0.1 (scripts/replica/allow-replication.sh adds the pg_hba.conf line).
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './server-process.ts';

const run = promisify(execFile);
const PG_BASEBACKUP = '/usr/bin/pg_basebackup';

/** Why a replica cannot be made here, or null (checked against the server: a replication connection is tried). */
export async function replicaMissing(): Promise<string | null> {
  const url = process.env.DATABASE_URL;
  if (!url) return 'a streaming replica needs PostgreSQL: this run is on PGlite (no DATABASE_URL)';
  if (!existsSync(PG_BASEBACKUP)) return `${PG_BASEBACKUP} is not installed (Debian: apt-get install postgresql-client)`;
  if (!(await pgCtl(url))) return 'no /usr/lib/postgresql/<major>/bin/pg_ctl of the server’s major version on this machine';
  if (process.getuid?.() === 0 && postgresIds() === null) return 'running as root and there is no postgres user to run the replica as';
  const probe = new pg.Client({ connectionString: url, replication: 'database' } as pg.ClientConfig);
  try {
    await probe.connect();
    await probe.query('IDENTIFY_SYSTEM');
  } catch (error) {
    return `the primary refuses replication connections (${(error as Error).message}): run scripts/replica/allow-replication.sh as root or postgres`;
  } finally {
    await probe.end().catch(() => undefined);
  }
  return null;
}

/** The postgres user's ids from /etc/passwd (the replica runs as it when the tests run as root), or null. */
function postgresIds(): { uid: number; gid: number } | null {
  const line = existsSync('/etc/passwd')
    ? readFileSync('/etc/passwd', 'utf8')
        .split('\n')
        .find((entry) => entry.startsWith('postgres:'))
    : undefined;
  const [, , uid, gid] = line?.split(':') ?? [];
  return uid && gid ? { uid: Number(uid), gid: Number(gid) } : null;
}

async function pgCtl(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ v: string }>("SELECT current_setting('server_version_num') AS v");
    const major = Math.floor(Number(rows[0]!.v) / 10_000);
    const candidate = `/usr/lib/postgresql/${major}/bin/pg_ctl`;
    return existsSync(candidate) ? candidate : null;
  } finally {
    await client.end();
  }
}

export interface Replica {
  port: number;
  /** The replica's URL of a database (the primary's URL with the replica's port). */
  url(database: string): string;
  /** Stops applying WAL (pg_wal_replay_pause), returning once it is paused: the replica's reads stay where they were. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Resolves once the replica has replayed everything the primary had inserted when called. */
  catchUp(): Promise<void>;
  /** Runs one statement on the replica's `postgres` database. */
  query<Row>(sql: string, params?: unknown[]): Promise<Row[]>;
  stop(): Promise<void>;
}

export async function startReplica(): Promise<Replica> {
  const primaryUrl = new URL(process.env.DATABASE_URL!);
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? postgresIds() : null;
  const dir = mkdtempSync(path.join(tmpdir(), 'tollbooth-replica-'));
  const dataDir = path.join(dir, 'data');
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const as = (command: string, args: string[]) => (owner ? run('runuser', ['-u', 'postgres', '--', command, ...args]) : run(command, args));
  const ctl = (await pgCtl(primaryUrl.toString()))!;

  const primary = new pg.Client({ connectionString: primaryUrl.toString() });
  await primary.connect();
  // A hot standby needs these at least as high as on its primary.
  const settings: string[] = [];
  for (const name of ['max_connections', 'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions', 'max_locks_per_transaction']) {
    settings.push(`${name} = ${(await primary.query(`SHOW ${name}`)).rows[0][name]}`);
  }
  const user = decodeURIComponent(primaryUrl.username || 'postgres');
  await as(PG_BASEBACKUP, [
    '-d',
    `host=${primaryUrl.hostname} port=${primaryUrl.port || 5432} user=${user}`,
    '-D',
    dataDir,
    '-R',
    '-X',
    'stream',
    '-c',
    'fast',
  ]);
  const port = await freePort();
  const files: Record<string, string> = {
    // Debian keeps its configuration in /etc: the copy has none of its own.
    'postgresql.conf': [
      `port = ${port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dir}'`,
      'hot_standby = on',
      // The replica tells the primary what its queries read, so replay never cancels them.
      'hot_standby_feedback = on',
      'shared_buffers = 32MB',
      'fsync = off',
      ...settings,
      '',
    ].join('\n'),
    'pg_hba.conf': 'local all all trust\nhost all all 127.0.0.1/32 trust\n',
    'pg_ident.conf': '',
  };
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(path.join(dataDir, name), text, { mode: 0o600 });
    if (owner) chownSync(path.join(dataDir, name), owner.uid, owner.gid);
  }
  chmodSync(dataDir, 0o700);
  const logFile = path.join(dir, 'replica.log');
  try {
    await as(ctl, ['-D', dataDir, '-l', logFile, '-w', '-t', '120', 'start']);
  } catch (error) {
    await primary.end();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  const replicaUrl = (database: string) => {
    const url = new URL(primaryUrl.toString());
    url.hostname = '127.0.0.1';
    url.port = String(port);
    url.pathname = `/${database}`;
    return url.toString();
  };
  const admin = new pg.Client({ connectionString: replicaUrl('postgres') });
  await admin.connect();
  const waitUntil = async (check: () => Promise<boolean>, what: string) => {
    for (let attempt = 0; attempt < 600; attempt++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`the replica did not ${what} in 30 s`);
  };
  const replica: Replica = {
    port,
    url: replicaUrl,
    async pause() {
      await admin.query('SELECT pg_wal_replay_pause()');
      await waitUntil(async () => (await admin.query('SELECT pg_get_wal_replay_pause_state() AS s')).rows[0].s === 'paused', 'pause');
    },
    async resume() {
      await admin.query('SELECT pg_wal_replay_resume()');
    },
    async catchUp() {
      const target = (await primary.query('SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows[0].lsn as string;
      await waitUntil(
        async () => (await admin.query('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [target])).rows[0].ok === true,
        `replay up to ${target}`,
      );
    },
    async query<Row>(sql: string, params: unknown[] = []) {
      return (await admin.query(sql, params)).rows as Row[];
    },
    async stop() {
      await admin.end().catch(() => undefined);
      await primary.end().catch(() => undefined);
      await as(ctl, ['-D', dataDir, '-m', 'immediate', 'stop']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await replica.catchUp();
  return replica;
}
