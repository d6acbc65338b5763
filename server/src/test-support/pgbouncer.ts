// A PgBouncer (Debian's /usr/sbin/pgbouncer) on a free loopback port in front of the test
// PostgreSQL named by DATABASE_URL, trusting its users as the test server does.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './server-process.ts';

export const PGBOUNCER = '/usr/sbin/pgbouncer';

/** Why a PgBouncer test cannot run here, or null. */
export function pgbouncerMissing(): string | null {
  if (!process.env.DATABASE_URL) return 'PgBouncer pools PostgreSQL connections: this run is on PGlite (no DATABASE_URL)';
  if (!existsSync(PGBOUNCER)) return `${PGBOUNCER} is not installed (Debian: apt-get install pgbouncer)`;
  return null;
}

export interface PgBouncer {
  /** The URL of `database` through PgBouncer. */
  url(database: string): string;
  /** What PgBouncer logged so far. */
  log(): string;
  close(): Promise<void>;
}

export async function startPgBouncer({ poolMode, poolSize }: { poolMode: 'transaction' | 'session'; poolSize: number }): Promise<PgBouncer> {
  const upstream = new URL(process.env.DATABASE_URL!);
  const dir = mkdtempSync(path.join(tmpdir(), 'tollbooth-pgbouncer-'));
  // Run as root, PgBouncer refuses unless told to switch to another user, who must read its files and write its log.
  chmodSync(dir, 0o777);
  const port = await freePort();
  const user = decodeURIComponent(upstream.username || 'postgres');
  writeFileSync(path.join(dir, 'users.txt'), `"${user}" ""\n`, { mode: 0o644 });
  writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${upstream.hostname} port=${upstream.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'users.txt')}`,
      `pool_mode = ${poolMode}`,
      'max_client_conn = 2000',
      `default_pool_size = ${poolSize}`,
      // node-postgres sends none of these, but a client that does should not be refused.
      'ignore_startup_parameters = extra_float_digits,options',
      `logfile = ${path.join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  const asRoot = process.getuid?.() === 0;
  const child: ChildProcess = spawn(PGBOUNCER, [...(asRoot ? ['-u', 'nobody'] : []), path.join(dir, 'pgbouncer.ini')], { stdio: 'ignore' });
  const log = () => {
    try {
      return readFileSync(path.join(dir, 'pgbouncer.log'), 'utf8');
    } catch {
      return '';
    }
  };
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited (${child.exitCode}): ${log()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) break;
    if (attempt > 300) throw new Error(`pgbouncer did not listen: ${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url(database) {
      const url = new URL(upstream.toString());
      url.hostname = '127.0.0.1';
      url.port = String(port);
      url.pathname = `/${database}`;
      return url.toString();
    },
    log,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
