// The real server the analytics and scale benches measure: on one PostgreSQL database whose
// statements it records (read-figures.ts), signed in through the test issuer as the bench's owner
// and caller, with limits high enough that only the database is measured.
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { buildApp } from '../server/src/app.ts';
import { openPostgres } from '../server/src/db/client.ts';
import { loadConfig } from '../server/src/platform/config.ts';
import type { startTestIssuer } from '../server/src/test-support/oidc-issuer.ts';
import { http, recordingDatabase } from './read-figures.ts';

export interface BenchServer {
  port: number;
  ownerToken: string;
  callerToken: string;
  recorder: ReturnType<typeof recordingDatabase>;
  /** The server's own pool, for measuring beside it. */
  pool: Awaited<ReturnType<typeof openPostgres>>;
  close(): Promise<void>;
}

/** A bench server's settings on database `url`, signing in through `issuer`, with `extra` on top. */
export function benchConfig(url: string, issuer: Awaited<ReturnType<typeof startTestIssuer>>, extra: Record<string, string> = {}) {
  return loadConfig({
    DATABASE_URL: url,
    DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'tollbooth-bench-')),
    SECRET_KEY: 'b'.repeat(64),
    PUBLIC_URL: 'http://tollbooth.bench',
    OIDC_ISSUER: issuer.issuer,
    OIDC_CLIENT_ID: 'bench',
    OIDC_AUDIENCE: issuer.audience,
    LOG_LEVEL: 'silent',
    ...extra,
  });
}

/** Starts the server on `url`; the owner's and the caller's tokens are checked once before it is handed back. */
export async function startBenchServer(
  url: string,
  issuer: Awaited<ReturnType<typeof startTestIssuer>>,
  { owner, caller }: { owner: string; caller: string },
): Promise<BenchServer> {
  const pool = await openPostgres(url, 10);
  const recorder = recordingDatabase(pool);
  const config = benchConfig(url, issuer, {
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
    RATE_LIMIT_PER_MINUTE: '10000000',
    MANAGEMENT_RATE_LIMIT_PER_MINUTE: '10000000',
    SIGNUP_CREDITS_CENTS: '100000000',
  });
  const app = await buildApp({ config, db: recorder.db, ...(process.env.BENCH_LOG_LEVEL ? {} : { logger: false }) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  const ownerToken = await issuer.sign({ sub: owner, email: 'owner@bench.test', name: 'Bench Owner' }, { expiresIn: '6h' });
  const callerToken = await issuer.sign({ sub: caller, email: 'caller@bench.test', name: 'Bench Caller' }, { expiresIn: '6h' });
  for (const token of [ownerToken, callerToken]) {
    const response = await http(port, 'GET', '/api/app/', token);
    if (response.status !== 200) throw new Error(`GET /api/app/ answered ${response.status}: ${response.body}`);
  }
  return {
    port,
    ownerToken,
    callerToken,
    recorder,
    pool,
    async close() {
      await app.close();
      await pool.close();
      rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Hands a kept database's bench users to this run's issuer (each run's test issuer has a new
 * address, and a user is its issuer and subject): for each subject, the user that owns the most apps.
 */
export async function adoptBenchUsers(url: string, issuer: Awaited<ReturnType<typeof startTestIssuer>>, subjects: string[]): Promise<void> {
  await withClient(url, (client) =>
    client.query(
      `UPDATE users SET issuer = $1 WHERE id IN (
         SELECT DISTINCT ON (u.subject) u.id FROM users u WHERE u.subject = ANY($2::text[])
         ORDER BY u.subject, (SELECT count(*) FROM apps a WHERE a.owner_id = u.id) DESC)`,
      [issuer.issuer, subjects],
    ),
  );
}

/** A bench's progress line on stderr, with the time. */
export const log = (message: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${message}`);

/** The URL of database `name` on the server of `serverUrl`. */
export function databaseOn(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs `fn` with one connection to `url`, closed after. */
export async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Reads a command-line option as a positive integer, or throws naming it. */
export const positiveOption =
  <Args extends object>(args: Args) =>
  (name: keyof Args & string): number => {
    const value = Number(args[name]);
    if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} must be a positive integer`);
    return value;
  };
