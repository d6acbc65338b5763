// The gateway benchmark (issue 4, "Performance"). One run, on this machine, against one loopback
// fake OpenAI-compatible upstream that answers at once:
//   direct    — the upstream itself (the floor every gateway adds to);
//   tollbooth — `node --import tsx server/src/main.ts` on a fresh PostgreSQL database: real paid
//               calls (API key of a consumer, another user's live public app at 1 cent), charged
//               and recorded exactly as in production;
//   portkey   — the Portkey AI gateway from npm (build/start-server.js --headless), as the peer.
// It measures one call at a time (n calls after a warm-up, microsecond timing, keep-alive) and
// throughput at 10 and 50 connections, checks that Tollbooth charged exactly the successful calls,
// then (unless --no-profile) restarts Tollbooth with a statement/CPU tap to show where the time goes.
// Prints the tables and writes them into bench/README.md ("## Gateway") unless --no-readme.
//
//   node --import tsx bench/gateway/run.ts [--quick] [--no-profile] [--no-readme]
//   env: DATABASE_URL (server URL, default postgres://postgres@127.0.0.1:5432/postgres),
//        BENCH_N (default 5000), BENCH_WARMUP (1000), BENCH_SECONDS (10), BENCH_CONNECTIONS (10,50),
//        BENCH_SERVER_ROOT (another checkout whose server/ to measure, default this one),
//        BENCH_KEEP_DB=1 (keep the database afterwards, to inspect it)
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { Pool } from 'undici';
import { startTestIssuer, type TestIssuer } from '../../server/src/test-support/oidc-issuer.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** The checkout whose server is measured (default this one): compare a change against another checkout. */
const SERVER_ROOT = path.resolve(process.env.BENCH_SERVER_ROOT ?? ROOT);
const HERE = import.meta.dirname;
const argv = new Set(process.argv.slice(2));
const QUICK = argv.has('--quick');
const PROFILE = !argv.has('--no-profile');
const WRITE_README = !argv.has('--no-readme') && !QUICK;
const envInt = (name: string, fallback: number) => {
  const raw = process.env[name];
  const value = raw ? Number(raw) : fallback;
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
  return value;
};
const N = envInt('BENCH_N', QUICK ? 1000 : 5000);
const WARMUP = envInt('BENCH_WARMUP', QUICK ? 300 : 1000);
const SECONDS = envInt('BENCH_SECONDS', QUICK ? 3 : 10);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '10,50').split(',').map((c) => Number.parseInt(c, 10));
const SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PRICE_CENTS = 1;
const RUN_DEADLINE_MS = 6 * 60_000;
const RERUN = 'node --import tsx bench/gateway/run.ts';

// ---------------------------------------------------------------------------------------------
// Processes, ports, cleanup

const children: ChildProcess[] = [];
const cleanups: (() => Promise<void>)[] = [];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

interface Child {
  process: ChildProcess;
  output: () => string;
  /** Rejects if the process exits before stop() is called. */
  exitedEarly: Promise<never>;
  stop: () => Promise<void>;
}

function startChild(name: string, args: string[], options: { cwd: string; env?: Record<string, string>; quiet?: boolean }): Child {
  const child = spawn(process.execPath, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', options.quiet ? 'ignore' : 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let stopping = false;
  const exitedEarly = new Promise<never>((_resolve, reject) => {
    child.on('exit', (code, signal) => {
      if (stopping || finished) return;
      reject(new Error(`${name} exited early (code ${code}, signal ${signal}):\n${output}`));
    });
  });
  exitedEarly.catch(() => undefined);
  return {
    process: child,
    output: () => output,
    exitedEarly,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      stopping = true;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const forced = setTimeout(() => child.kill('SIGKILL'), 12_000);
      await exited;
      clearTimeout(forced);
    },
  };
}

async function waitFor<T>(what: string, probe: () => Promise<T | null>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = null;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== null) return value;
    } catch (error) {
      lastError = error;
    }
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}${lastError ? `: ${(lastError as Error).message}` : ''}`);
}

let finished = false;

// ---------------------------------------------------------------------------------------------
// Measurement

interface Target {
  name: 'direct' | 'tollbooth' | 'portkey';
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** HTTP 200 answers Tollbooth gave over the whole run (the calls that must have been charged). */
const tollboothTally = { ok: 0, notOk: 0, failed: 0 };
const firstErrors: string[] = [];

async function callOnce(pool: Pool, target: Target): Promise<boolean> {
  try {
    const { statusCode, body } = await pool.request({ method: 'POST', path: target.path, headers: target.headers, body: target.body });
    if (statusCode === 200) {
      await body.dump({ limit: 1 << 20 });
      if (target.name === 'tollbooth') tollboothTally.ok++;
      return true;
    }
    const text = await body.text();
    if (target.name === 'tollbooth') tollboothTally.notOk++;
    if (firstErrors.length < 10) firstErrors.push(`${target.name} ${statusCode}: ${text.slice(0, 300)}`);
    return false;
  } catch (error) {
    if (target.name === 'tollbooth') tollboothTally.failed++;
    if (firstErrors.length < 10) firstErrors.push(`${target.name} request failed: ${(error as Error).message}`);
    return false;
  }
}

const newPool = (target: Target, connections: number) =>
  new Pool(target.origin, { connections, pipelining: 1, keepAliveTimeout: 120_000, keepAliveMaxTimeout: 120_000, headersTimeout: 60_000, bodyTimeout: 60_000 });

function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

interface LatencyResult {
  target: Target['name'];
  n: number;
  errors: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  max: number;
}

/** One call at a time over one keep-alive connection; microseconds from send to the last body byte. */
async function measureLatency(target: Target, n: number, warmup: number): Promise<LatencyResult> {
  const pool = newPool(target, 1);
  try {
    for (let i = 0; i < warmup; i++) await callOnce(pool, target);
    const samples = new Float64Array(n);
    let errors = 0;
    for (let i = 0; i < n; i++) {
      const started = process.hrtime.bigint();
      const ok = await callOnce(pool, target);
      samples[i] = Number(process.hrtime.bigint() - started) / 1000;
      if (!ok) errors++;
    }
    const sorted = samples.slice().sort();
    const mean = samples.reduce((sum, v) => sum + v, 0) / n;
    return {
      target: target.name,
      n,
      errors,
      p50: percentile(sorted, 0.5),
      p90: percentile(sorted, 0.9),
      p99: percentile(sorted, 0.99),
      mean,
      max: sorted[n - 1]!,
    };
  } finally {
    await pool.close();
  }
}

interface ThroughputResult {
  target: Target['name'];
  connections: number;
  seconds: number;
  calls: number;
  errors: number;
  perSecond: number;
  p50: number;
  p99: number;
}

/** `connections` workers, each one call at a time on its own keep-alive connection, for `seconds`. */
async function measureThroughput(target: Target, connections: number, seconds: number, warmupSeconds = 1): Promise<ThroughputResult> {
  const pool = newPool(target, connections);
  try {
    const run = async (durationMs: number, record: boolean) => {
      const latencies: number[] = [];
      let errors = 0;
      const stopAt = performance.now() + durationMs;
      const worker = async () => {
        while (performance.now() < stopAt) {
          const started = process.hrtime.bigint();
          const ok = await callOnce(pool, target);
          if (!record) continue;
          if (ok) latencies.push(Number(process.hrtime.bigint() - started) / 1000);
          else errors++;
        }
      };
      const began = performance.now();
      await Promise.all(Array.from({ length: connections }, worker));
      return { latencies, errors, elapsedMs: performance.now() - began };
    };
    await run(warmupSeconds * 1000, false);
    const { latencies, errors, elapsedMs } = await run(seconds * 1000, true);
    const sorted = Float64Array.from(latencies).sort();
    return {
      target: target.name,
      connections,
      seconds: elapsedMs / 1000,
      calls: latencies.length,
      errors,
      perSecond: latencies.length / (elapsedMs / 1000),
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
    };
  } finally {
    await pool.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Tollbooth set-up and the charge check

interface Setup {
  slug: string;
  appId: string;
  ownerId: string;
  consumerId: string;
  apiKey: string;
  consumerToken: string;
}

async function api<T>(origin: string, method: string, url: string, token: string, body?: object): Promise<T> {
  const response = await fetch(origin + url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url} → ${response.status}: ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

async function setUpTollbooth(origin: string, issuer: TestIssuer, db: pg.Client): Promise<Setup> {
  const ownerToken = await issuer.sign({ sub: 'bench-owner', email: 'owner@bench.test', name: 'Bench Owner' });
  const consumerToken = await issuer.sign({ sub: 'bench-consumer', email: 'consumer@bench.test', name: 'Bench Consumer' });
  const app = await api<{ slug: string }>(origin, 'POST', '/api/app/', ownerToken, {
    name: 'Gateway Bench',
    type: 'prompt',
    visibility: 'public',
    price_cents: PRICE_CENTS,
  });
  await api(origin, 'PATCH', `/api/app/${app.slug}/update_status/`, ownerToken, { status: 'live' });
  const key = await api<{ id: string; key: string }>(origin, 'POST', '/api/keys/', consumerToken, { name: 'bench key' });
  const { rows } = await db.query<{ app_id: string; owner_id: string; consumer_id: string }>(
    'SELECT a.id AS app_id, a.owner_id, k.user_id AS consumer_id FROM apps a, api_keys k WHERE a.slug = $1 AND k.id = $2',
    [app.slug, key.id],
  );
  const row = rows[0]!;
  return { slug: app.slug, appId: row.app_id, ownerId: row.owner_id, consumerId: row.consumer_id, apiKey: key.key, consumerToken };
}

interface MoneySnapshot {
  credits: number;
  held: number;
  earnings: number;
  holds: number;
  successes: number;
  failures: number;
  charges: number;
  ledgerSum: number;
  apiCredits: number;
}

async function snapshot(db: pg.Client, origin: string, setup: Setup): Promise<MoneySnapshot> {
  const { rows } = await db.query(
    `SELECT
       (SELECT balance_cents FROM ledger_accounts WHERE kind = 'user_credits' AND user_id = $1)::bigint AS credits,
       (SELECT held_cents FROM ledger_accounts WHERE kind = 'user_credits' AND user_id = $1)::bigint AS held,
       coalesce((SELECT balance_cents FROM ledger_accounts WHERE kind = 'creator_earnings' AND user_id = $2), 0)::bigint AS earnings,
       (SELECT count(*) FROM credit_holds)::bigint AS holds,
       (SELECT count(*) FROM invocations WHERE app_id = $3 AND status = 'success')::bigint AS successes,
       (SELECT count(*) FROM invocations WHERE app_id = $3 AND status = 'error')::bigint AS failures,
       (SELECT count(*) FROM ledger_transactions WHERE kind = 'call_charge')::bigint AS charges,
       (SELECT coalesce(sum(amount_cents), 0) FROM ledger_entries)::bigint AS ledger_sum`,
    [setup.consumerId, setup.ownerId, setup.appId],
  );
  const row = rows[0] as Record<string, string>;
  const balance = await api<{ credits_cents: number }>(origin, 'GET', '/api/billing/balance/', setup.consumerToken);
  return {
    credits: Number(row.credits),
    held: Number(row.held),
    earnings: Number(row.earnings),
    holds: Number(row.holds),
    successes: Number(row.successes),
    failures: Number(row.failures),
    charges: Number(row.charges),
    ledgerSum: Number(row.ledger_sum),
    apiCredits: balance.credits_cents,
  };
}

interface ChargeCheck {
  ok: boolean;
  lines: string[];
}

function checkCharges(before: MoneySnapshot, after: MoneySnapshot, tally: typeof tollboothTally): ChargeCheck {
  const successes = tally.ok;
  const expected = successes * PRICE_CENTS;
  const checks: [string, boolean][] = [
    [`HTTP 200 answers from Tollbooth: ${successes} (non-200: ${tally.notOk}, transport failures: ${tally.failed})`, tally.failed === 0],
    [
      `consumer credits: ${before.credits} → ${after.credits} cents, delta ${after.credits - before.credits} = -(${successes} × ${PRICE_CENTS})`,
      before.credits - after.credits === expected,
    ],
    [`GET /api/billing/balance/ credits_cents delta ${after.apiCredits - before.apiCredits}`, before.apiCredits - after.apiCredits === expected],
    [`creator earnings delta ${after.earnings - before.earnings} cents`, after.earnings - before.earnings === expected],
    [`successful invocations recorded: ${after.successes - before.successes}`, after.successes - before.successes === successes],
    [`failed invocations recorded: ${after.failures - before.failures} (non-200 answers: ${tally.notOk})`, after.failures - before.failures === tally.notOk],
    [`call_charge ledger transactions: ${after.charges - before.charges}`, after.charges - before.charges === successes],
    [`credit holds left: ${after.holds}, held cents: ${after.held}`, after.holds === 0 && after.held === 0],
    [`sum of all ledger entries: ${after.ledgerSum}`, after.ledgerSum === 0],
  ];
  return { ok: checks.every(([, ok]) => ok), lines: checks.map(([text, ok]) => `${ok ? 'ok  ' : 'FAIL'} ${text}`) };
}

// ---------------------------------------------------------------------------------------------
// Profile analysis

interface TapStatement {
  sql: string;
  count: number;
  totalUs: number;
  maxUs: number;
}
interface Tap {
  wallUs: number;
  cpuUserUs: number;
  cpuSystemUs: number;
  eventLoopUtilization: number;
  connectWait: { count: number; totalUs: number; maxUs: number };
  statements: TapStatement[];
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

function packageOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) {
    const parts = url.slice(5).split('/');
    if (parts[0] !== 'internal') return `node:${parts[0]}`;
    if (parts[1] === 'deps' && parts[2] === 'undici') return 'node:internal/deps/undici (fetch)';
    return `node:internal/${parts[1]?.replace(/\.js$/, '')}`;
  }
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + 14).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  const src = url.indexOf('/server/src/');
  if (src >= 0) return `tollbooth ${url.slice(src + 12)}`;
  return url.replace(/^file:\/\//, '');
}

function analyseCpu(profile: CpuProfile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const selfByPackage = new Map<string, number>();
  const selfByFunction = new Map<string, number>();
  const inclusiveTollbooth = new Map<string, number>();
  const cpuByOwner = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0;
    const node = byId.get(profile.samples[i]!)!;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') {
      idle += delta;
      continue;
    }
    total += delta;
    const pkg = packageOf(url, functionName);
    selfByPackage.set(pkg, (selfByPackage.get(pkg) ?? 0) + delta);
    const where = url.includes('/server/src/') ? packageOf(url, '') : `${packageOf(url, '')}:${lineNumber + 1}`;
    const fn = `${functionName || '(anonymous)'} ${url ? where : ''}`.trim();
    selfByFunction.set(fn, (selfByFunction.get(fn) ?? 0) + delta);
    const seen = new Set<string>();
    let owner: string | null = functionName.startsWith('(') && !url ? functionName : null;
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)!.callFrame;
      if (owner === null && frame.url) {
        const pkg = packageOf(frame.url, frame.functionName);
        if (pkg.startsWith('tollbooth ')) owner = 'tollbooth (server/src)';
        else if (pkg === 'node:internal/deps/undici (fetch)') owner = 'fetch (undici in Node core): upstream calls';
        else if (pkg.startsWith('node:_http') || pkg === 'node:internal/http') owner = 'node:http (server side)';
        else if (!pkg.startsWith('node:') && !pkg.includes('profile-tap') && !pkg.startsWith('(')) owner = pkg;
      }
      if (!frame.url.includes('/server/src/')) continue;
      // tsx's transpiled line numbers do not match the source, so name the file only.
      const key = `${frame.functionName || '(anonymous)'} (${packageOf(frame.url, '').slice(10)})`;
      if (seen.has(key)) continue;
      seen.add(key);
      inclusiveTollbooth.set(key, (inclusiveTollbooth.get(key) ?? 0) + delta);
    }
    owner ??= `${pkg} (no library on the stack)`;
    cpuByOwner.set(owner, (cpuByOwner.get(owner) ?? 0) + delta);
  }
  const top = (map: Map<string, number>, count: number) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([name, us]) => ({ name, ms: us / 1000, share: total ? us / total : 0 }));
  return {
    busyMs: total / 1000,
    idleMs: idle / 1000,
    packages: top(selfByPackage, 14),
    owners: top(cpuByOwner, 14),
    functions: top(selfByFunction, 14),
    tollbooth: top(inclusiveTollbooth, 12),
  };
}

interface PgCounters {
  xactCommit: number;
  xactRollback: number;
  walRecords: number;
  walBytes: number;
  walSync: number;
}

async function pgCounters(db: pg.Client, database: string): Promise<PgCounters> {
  const { rows } = await db.query(
    `SELECT d.xact_commit, d.xact_rollback, w.wal_records, w.wal_bytes, w.wal_sync
     FROM pg_stat_database d, pg_stat_wal w WHERE d.datname = $1`,
    [database],
  );
  const row = rows[0] as Record<string, string>;
  return {
    xactCommit: Number(row.xact_commit),
    xactRollback: Number(row.xact_rollback),
    walRecords: Number(row.wal_records),
    walBytes: Number(row.wal_bytes),
    walSync: Number(row.wal_sync),
  };
}

/** CPU ticks (user + system) of the PostgreSQL backends serving the benchmark database, by pid (Linux /proc). */
async function backendTicks(db: pg.Client, database: string): Promise<Map<number, number>> {
  const { rows } = await db.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'", [database]);
  const ticks = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks.set(pid, Number(fields[11]) + Number(fields[12]));
    } catch {
      // Not on Linux, or the backend is gone.
    }
  }
  return ticks;
}

/** Busy and total jiffies of the whole machine (Linux /proc/stat). */
function machineTicks(): { busy: number; total: number } | null {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = cpu.reduce((sum, v) => sum + v, 0);
    const idle = (cpu[3] ?? 0) + (cpu[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

interface ProfileWindow {
  label: string;
  calls: number;
  callsPerSecond: number;
  tap: Tap;
  pg: PgCounters;
  cpu: ReturnType<typeof analyseCpu>;
  /** CPU milliseconds over the window: PostgreSQL backends of this database, the load generator (this process). */
  postgresCpuMs: number | null;
  loadGeneratorCpuMs: number;
  /** Busy share of all cores over the window, or null off Linux. */
  machineBusy: number | null;
}

// ---------------------------------------------------------------------------------------------
// Output

const ms = (us: number) => (us / 1000).toFixed(3);
const signedMs = (us: number) => `${us >= 0 ? '+' : ''}${(us / 1000).toFixed(3)}`;
const int = (value: number) => Math.round(value).toLocaleString('en-US');

function table(headers: string[], rows: (string | number)[][]): string {
  const cells = rows.map((row) => row.map(String));
  const widths = headers.map((header, i) => Math.max(header.length, ...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) => `| ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(' | ')} |`;
  return [line(headers), `|${widths.map((w, i) => (i === 0 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...cells.map(line)].join('\n');
}

function machineInfo(pgVersion: string) {
  const free = (() => {
    try {
      return execFileSync('free', ['-g'], { encoding: 'utf8' })
        .split('\n')
        .find((line) => line.startsWith('Mem:'))
        ?.replace(/\s+/g, ' ')
        .trim();
    } catch {
      return `${Math.round(os.totalmem() / 2 ** 30)} GiB total`;
    }
  })();
  const nproc = (() => {
    try {
      return execFileSync('nproc', { encoding: 'utf8' }).trim();
    } catch {
      return String(os.availableParallelism());
    }
  })();
  const revision = (() => {
    try {
      const git = (...args: string[]) => execFileSync('git', ['-C', SERVER_ROOT, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
      const changed = git('status', '--porcelain', '--', 'server', 'contract').split('\n').filter(Boolean).length;
      return `commit ${git('rev-parse', '--short', 'HEAD')}${changed ? ` plus ${changed} uncommitted changes under server/ and contract/` : ''}`;
    } catch {
      return 'no git revision';
    }
  })();
  return {
    tollbooth: `${path.relative(ROOT, SERVER_ROOT) || 'this checkout'}, ${revision}`,
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    cpu: `${os.cpus()[0]?.model ?? 'unknown CPU'}, nproc ${nproc}`,
    memory: `free -g: ${free} (total used free shared buff/cache available)`,
    postgres: pgVersion,
    node: process.version,
    load: os
      .loadavg()
      .map((v) => v.toFixed(2))
      .join(' '),
    os: `${os.type()} ${os.release()}`,
  };
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const watchdog = setTimeout(() => {
    console.error(`\nThe benchmark ran past ${RUN_DEADLINE_MS / 60_000} minutes; stopping.`);
    void shutdown().finally(() => process.exit(2));
  }, RUN_DEADLINE_MS);
  watchdog.unref();
  const startedAt = performance.now();
  const loadAtStart = os
    .loadavg()
    .map((v) => v.toFixed(2))
    .join(' ');
  if (os.loadavg()[0]! > 1.5) console.warn(`Load average is ${loadAtStart} before the run: other work on this machine will distort the figures.`);
  const phase = (text: string) => console.log(`[${((performance.now() - startedAt) / 1000).toFixed(1).padStart(6)} s] ${text}`);

  // 1. The fake upstream, in its own process.
  const upstream = startChild('upstream', ['--import', 'tsx', path.join(HERE, 'upstream.ts')], { cwd: ROOT });
  const upstreamPort = await Promise.race([
    waitFor('the fake upstream', async () => {
      const match = /\{"port":(\d+)\}/.exec(upstream.output());
      return match ? Number(match[1]) : null;
    }),
    upstream.exitedEarly,
  ]);
  const upstreamOrigin = `http://127.0.0.1:${upstreamPort}`;
  cleanups.push(() => upstream.stop());
  phase(`fake upstream on ${upstreamOrigin}`);

  // 2. A fresh database and a loopback OIDC issuer.
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  const pgVersion = ((await admin.query('SHOW server_version')).rows[0] as { server_version: string }).server_version;
  const database = `tb_bench_${randomBytes(5).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${database}`);
  cleanups.push(async () => {
    if (process.env.BENCH_KEEP_DB) console.log(`Kept the database ${database} (BENCH_KEEP_DB): drop it with DROP DATABASE ${database} WITH (FORCE)`);
    else await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  });
  const databaseUrl = new URL(SERVER_URL);
  databaseUrl.pathname = `/${database}`;
  const issuer = await startTestIssuer('http://tollbooth.bench/api');
  cleanups.push(() => issuer.close());
  phase(`database ${database} on PostgreSQL ${pgVersion}; OIDC issuer ${issuer.issuer}`);

  // 3. Tollbooth, as production starts it.
  const tollboothPort = await freePort();
  const tollboothOrigin = `http://127.0.0.1:${tollboothPort}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tollbooth-bench-'));
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  const tollboothEnv = {
    PORT: String(tollboothPort),
    HOST: '127.0.0.1',
    PUBLIC_URL: tollboothOrigin,
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl.toString(),
    OPENAI_BASE_URL: `${upstreamOrigin}/v1`,
    OPENAI_API_KEY: 'x',
    OIDC_ISSUER: issuer.issuer,
    OIDC_CLIENT_ID: 'bench-client',
    OIDC_AUDIENCE: issuer.audience,
    SECRET_KEY: randomBytes(32).toString('hex'),
    RATE_LIMIT_PER_MINUTE: '10000000',
    SIGNUP_CREDITS_CENTS: '100000000',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
  };
  const startTollbooth = async (extraArgs: string[] = [], extraEnv: Record<string, string> = {}) => {
    const child = startChild('tollbooth', [...extraArgs, '--import', 'tsx', 'server/src/main.ts'], {
      cwd: SERVER_ROOT,
      env: { ...tollboothEnv, ...extraEnv, BENCH_SERVER_ROOT: SERVER_ROOT },
    });
    await Promise.race([waitFor('Tollbooth', async () => ((await fetch(`${tollboothOrigin}/api/health`)).ok ? true : null)), child.exitedEarly]);
    return child;
  };
  let tollbooth = await startTollbooth();
  cleanups.push(() => tollbooth.stop());
  phase(`Tollbooth on ${tollboothOrigin} (pid ${tollbooth.process.pid})`);

  // 4. Portkey's gateway from npm.
  const portkeyPort = await freePort();
  const portkeyOrigin = `http://127.0.0.1:${portkeyPort}`;
  const portkeyEntry = path.join(HERE, 'node_modules/@portkey-ai/gateway/build/start-server.js');
  if (!existsSync(portkeyEntry)) throw new Error(`Portkey is not installed: run npm install --prefix bench/gateway (missing ${portkeyEntry})`);
  const portkeyVersion = (JSON.parse(readFileSync(path.join(HERE, 'node_modules/@portkey-ai/gateway/package.json'), 'utf8')) as { version: string }).version;
  const portkey = startChild('portkey', [portkeyEntry, `--port=${portkeyPort}`, '--headless'], { cwd: HERE, quiet: true });
  cleanups.push(() => portkey.stop());
  await Promise.race([waitFor('Portkey', async () => ((await fetch(`${portkeyOrigin}/`)).status > 0 ? true : null)), portkey.exitedEarly]);
  phase(`Portkey gateway ${portkeyVersion} on ${portkeyOrigin} (pid ${portkey.process.pid})`);

  // 5. Owner, live public paid app, consumer with an API key.
  const db = new pg.Client({ connectionString: databaseUrl.toString() });
  await db.connect();
  cleanups.push(async () => db.end());
  const setup = await setUpTollbooth(tollboothOrigin, issuer, db);
  phase(`app ${setup.slug} (${PRICE_CENTS} cent a call, live, public); consumer key ${setup.apiKey.slice(0, 11)}…`);

  // The same chat completion everywhere: what Tollbooth sends upstream for this app.
  const chatBody = JSON.stringify({
    model: 'gpt-4-turbo',
    messages: [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: 'Hello' },
    ],
    max_tokens: 2048,
    temperature: 0.7,
  });
  const json = { 'content-type': 'application/json' };
  const targets: Record<Target['name'], Target> = {
    direct: { name: 'direct', origin: upstreamOrigin, path: '/v1/chat/completions', headers: { ...json, authorization: 'Bearer x' }, body: chatBody },
    tollbooth: {
      name: 'tollbooth',
      origin: tollboothOrigin,
      path: `/api/app/${setup.slug}/completion-messages`,
      headers: { ...json, authorization: `Bearer ${setup.apiKey}` },
      body: JSON.stringify({ inputs: { query: 'Hello' }, response_mode: 'blocking', user: 'bench-end-user' }),
    },
    portkey: {
      name: 'portkey',
      origin: portkeyOrigin,
      path: '/v1/chat/completions',
      headers: { ...json, authorization: 'Bearer x', 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${upstreamOrigin}/v1` },
      body: chatBody,
    },
  };

  // Each target answers what it should before anything is measured.
  for (const target of Object.values(targets)) {
    const response = await fetch(target.origin + target.path, { method: 'POST', headers: target.headers, body: target.body });
    const text = await response.text();
    const answer = (() => {
      try {
        const parsed = JSON.parse(text) as { answer?: string; choices?: { message?: { content?: string } }[] };
        return parsed.answer ?? parsed.choices?.[0]?.message?.content;
      } catch {
        return undefined;
      }
    })();
    if (response.status !== 200 || answer !== 'Hello from the benchmark upstream.') {
      const log = target.name === 'tollbooth' ? `\nLast lines Tollbooth logged:\n${tollbooth.output().slice(-3000)}` : '';
      throw new Error(`${target.name} does not answer as expected: ${response.status} ${text.slice(0, 500)}${log}`);
    }
    if (target.name === 'tollbooth') tollboothTally.ok++;
  }
  const moneyBefore = await snapshot(db, tollboothOrigin, setup);
  // The sanity call above was charged before the snapshot.
  tollboothTally.ok = 0;
  const upstreamCallsBefore = ((await (await fetch(`${upstreamOrigin}/calls`)).json()) as { calls: number }).calls;
  phase('all three answer the same completion; measuring');

  // 6. One call at a time.
  const latency: LatencyResult[] = [];
  for (const name of ['direct', 'tollbooth', 'portkey'] as const) {
    const result = await measureLatency(targets[name], N, WARMUP);
    latency.push(result);
    phase(`latency ${name}: p50 ${ms(result.p50)} ms, p99 ${ms(result.p99)} ms (n ${N}, errors ${result.errors})`);
  }

  // 7. Throughput.
  const throughput: ThroughputResult[] = [];
  for (const connections of CONNECTIONS) {
    for (const name of ['direct', 'tollbooth', 'portkey'] as const) {
      const result = await measureThroughput(targets[name], connections, SECONDS);
      throughput.push(result);
      phase(
        `throughput ${name} ×${connections}: ${int(result.perSecond)} calls/s, p50 ${ms(result.p50)} ms, p99 ${ms(result.p99)} ms, errors ${result.errors}`,
      );
    }
  }

  // 8. Exact charging.
  await sleep(200);
  const moneyAfter = await snapshot(db, tollboothOrigin, setup);
  const charge = checkCharges(moneyBefore, moneyAfter, tollboothTally);
  const upstreamCalls = ((await (await fetch(`${upstreamOrigin}/calls`)).json()) as { calls: number }).calls - upstreamCallsBefore;
  phase(
    `charge check ${charge.ok ? 'passed' : 'FAILED'} (${tollboothTally.ok} paid calls; the upstream saw ${int(upstreamCalls)} calls from all three targets)`,
  );

  // 9. Where Tollbooth's time goes: a second Tollbooth process with the statement/CPU tap.
  const windows: ProfileWindow[] = [];
  let profileCharge: ChargeCheck | null = null;
  if (PROFILE) {
    await tollbooth.stop();
    const tapDir = mkdtempSync(path.join(os.tmpdir(), 'tollbooth-bench-tap-'));
    cleanups.push(async () => rmSync(tapDir, { recursive: true, force: true }));
    tollbooth = await startTollbooth(['--import', 'tsx', '--import', path.join(HERE, 'profile-tap.ts')], { BENCH_TAP_DIR: tapDir });
    phase(`profiling: Tollbooth restarted with the statement/CPU tap (pid ${tollbooth.process.pid})`);
    const profileBefore = await snapshot(db, tollboothOrigin, setup);
    const tallyAtStart = { ...tollboothTally };
    const tapWindow = async (label: string, work: () => Promise<number>) => {
      for (const file of ['tap.started', 'tap.done']) rmSync(path.join(tapDir, file), { force: true });
      await sleep(1100); // let pg_stat counters of earlier work flush
      const pgBefore = await pgCounters(admin, database);
      tollbooth.process.kill('SIGUSR2');
      await waitFor('the tap to start', async () => (existsSync(path.join(tapDir, 'tap.started')) ? true : null), 10_000);
      const okBefore = tollboothTally.ok;
      const ticksBefore = await backendTicks(admin, database);
      const machineBefore = machineTicks();
      const selfBefore = process.cpuUsage();
      const began = performance.now();
      await work();
      const elapsed = (performance.now() - began) / 1000;
      const selfCpu = process.cpuUsage(selfBefore);
      const machineAfter = machineTicks();
      const ticksAfter = await backendTicks(admin, database);
      tollbooth.process.kill('SIGUSR2');
      let backendTickSum = 0;
      for (const [pid, after] of ticksAfter) backendTickSum += after - (ticksBefore.get(pid) ?? 0);
      const postgresCpuMs = ticksAfter.size > 0 ? (backendTickSum * 1000) / CLOCK_TICKS : null;
      const machineBusy =
        machineBefore && machineAfter && machineAfter.total > machineBefore.total
          ? (machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)
          : null;
      await waitFor('the tap to finish', async () => (existsSync(path.join(tapDir, 'tap.done')) ? true : null), 30_000);
      await sleep(1100);
      const pgAfter = await pgCounters(admin, database);
      const calls = tollboothTally.ok - okBefore;
      const tap = JSON.parse(readFileSync(path.join(tapDir, 'tap.json'), 'utf8')) as Tap;
      const cpu = analyseCpu(JSON.parse(readFileSync(path.join(tapDir, 'server.cpuprofile'), 'utf8')) as CpuProfile);
      const pgDelta: PgCounters = {
        xactCommit: pgAfter.xactCommit - pgBefore.xactCommit,
        xactRollback: pgAfter.xactRollback - pgBefore.xactRollback,
        walRecords: pgAfter.walRecords - pgBefore.walRecords,
        walBytes: pgAfter.walBytes - pgBefore.walBytes,
        walSync: pgAfter.walSync - pgBefore.walSync,
      };
      windows.push({
        label,
        calls,
        callsPerSecond: calls / elapsed,
        tap,
        pg: pgDelta,
        cpu,
        postgresCpuMs,
        loadGeneratorCpuMs: (selfCpu.user + selfCpu.system) / 1000,
        machineBusy,
      });
      phase(`profile window "${label}": ${calls} paid calls`);
    };
    const sequentialCalls = QUICK ? 500 : 2000;
    {
      const pool = newPool(targets.tollbooth, 1);
      for (let i = 0; i < 300; i++) await callOnce(pool, targets.tollbooth);
      await tapWindow('one call at a time', async () => {
        for (let i = 0; i < sequentialCalls; i++) await callOnce(pool, targets.tollbooth);
        return sequentialCalls;
      });
      await pool.close();
    }
    const loadConnections = CONNECTIONS.at(-1) ?? 50;
    await tapWindow(`${loadConnections} connections`, async () => {
      const result = await measureThroughput(targets.tollbooth, loadConnections, QUICK ? 3 : 5, 0);
      return result.calls;
    });
    await sleep(200);
    const profileAfter = await snapshot(db, tollboothOrigin, setup);
    profileCharge = checkCharges(profileBefore, profileAfter, {
      ok: tollboothTally.ok - tallyAtStart.ok,
      notOk: tollboothTally.notOk - tallyAtStart.notOk,
      failed: tollboothTally.failed - tallyAtStart.failed,
    });
    phase(`profile phase charge check ${profileCharge.ok ? 'passed' : 'FAILED'}`);
  }

  // 10. Report.
  const machine = machineInfo(pgVersion);
  const loadAtEnd = machine.load;
  const direct = latency.find((r) => r.target === 'direct')!;
  const tb = latency.find((r) => r.target === 'tollbooth')!;
  const pk = latency.find((r) => r.target === 'portkey')!;
  const at = (name: Target['name'], connections: number) => throughput.find((r) => r.target === name && r.connections === connections);
  const maxConnections = Math.max(...CONNECTIONS);
  const tb50 = at('tollbooth', maxConnections);
  const pk50 = at('portkey', maxConnections);
  const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');
  const targetsTable = table(
    ['target (issue 4)', 'goal', 'measured', 'verdict'],
    [
      ['added latency p50', '≤ 1 ms', `${signedMs(tb.p50 - direct.p50)} ms`, verdict(tb.p50 - direct.p50 <= 1000)],
      ['added latency p99', '≤ 3 ms', `${signedMs(tb.p99 - direct.p99)} ms`, verdict(tb.p99 - direct.p99 <= 3000)],
      [`paid calls/s at ${maxConnections} connections`, '≥ 2,000', tb50 ? int(tb50.perSecond) : '-', verdict((tb50?.perSecond ?? 0) >= 2000)],
      [
        `… and at least Portkey's at ${maxConnections}`,
        pk50 ? `≥ ${int(pk50.perSecond)}` : '-',
        tb50 ? int(tb50.perSecond) : '-',
        verdict((tb50?.perSecond ?? 0) >= (pk50?.perSecond ?? Number.POSITIVE_INFINITY)),
      ],
      ['(for reference) Portkey added p50 / p99', '-', `${signedMs(pk.p50 - direct.p50)} / ${signedMs(pk.p99 - direct.p99)} ms`, '-'],
    ],
  );
  const latencyTable = table(
    ['one call at a time', 'p50 ms', 'p90 ms', 'p99 ms', 'mean ms', 'max ms', 'added p50', 'added p99', 'errors'],
    latency.map((r) => [
      r.target,
      ms(r.p50),
      ms(r.p90),
      ms(r.p99),
      ms(r.mean),
      ms(r.max),
      r.target === 'direct' ? '-' : signedMs(r.p50 - direct.p50),
      r.target === 'direct' ? '-' : signedMs(r.p99 - direct.p99),
      r.errors,
    ]),
  );
  const throughputTable = table(
    ['throughput', 'connections', 'calls/s', 'p50 ms', 'p99 ms', 'calls', 'errors'],
    throughput.map((r) => [r.target, r.connections, int(r.perSecond), ms(r.p50), ms(r.p99), int(r.calls), r.errors]),
  );

  const profileText: string[] = [];
  /** What goes into bench/README.md; the console gets profileText, which has the CPU detail too. */
  const profileBrief: string[] = [];
  for (const window of windows) {
    if (window.calls === 0) {
      const none = [`#### Tollbooth, ${window.label}: no successful calls (see the first errors)`, ''];
      profileText.push(...none);
      profileBrief.push(...none);
      continue;
    }
    const calls = window.calls;
    const statements = [...window.tap.statements].sort((a, b) => b.totalUs - a.totalUs);
    const totalStatements = statements.reduce((sum, s) => sum + s.count, 0);
    const totalDbUs = statements.reduce((sum, s) => sum + s.totalUs, 0);
    const busyMs = window.cpu.busyMs;
    const brief = [
      `#### Tollbooth, ${window.label}: ${int(window.calls)} paid calls, ${int(window.callsPerSecond)} calls/s`,
      '',
      `- Round trips to PostgreSQL per call: **${(totalStatements / calls).toFixed(1)}** statements ` +
        `(${(window.pg.xactCommit / calls).toFixed(2)} commits per call by pg_stat_database), ` +
        `${(totalDbUs / calls / 1000).toFixed(3)} ms of statement time per call (summed over statements as the client sees them).`,
      `- Waiting for a pooled connection: ${int(window.tap.connectWait.count / calls)} checkouts per call, ` +
        `${(window.tap.connectWait.totalUs / calls / 1000).toFixed(3)} ms per call on average, max ${ms(window.tap.connectWait.maxUs)} ms.`,
      `- Server process CPU: ${((window.tap.cpuUserUs + window.tap.cpuSystemUs) / calls / 1000).toFixed(3)} ms per call ` +
        `(user ${(window.tap.cpuUserUs / calls / 1000).toFixed(3)}, system ${(window.tap.cpuSystemUs / calls / 1000).toFixed(3)}); ` +
        `event-loop utilisation ${(window.tap.eventLoopUtilization * 100).toFixed(0)} %; ` +
        `JS busy ${(busyMs / calls).toFixed(3)} ms per call in the V8 profile.`,
      `- CPU per call elsewhere: PostgreSQL backends of this database ${window.postgresCpuMs === null ? 'n/a' : `${(window.postgresCpuMs / calls).toFixed(3)} ms`}, ` +
        `load generator ${(window.loadGeneratorCpuMs / calls).toFixed(3)} ms; all cores busy ${window.machineBusy === null ? 'n/a' : `${(window.machineBusy * 100).toFixed(0)} %`} over the window.`,
      `- WAL (whole cluster): ${int(window.pg.walBytes / calls)} bytes and ${(window.pg.walRecords / calls).toFixed(1)} records per call, ` +
        `${int(window.pg.walSync)} WAL syncs for ${int(window.calls)} calls (${(window.pg.walSync / calls).toFixed(2)} per call).`,
      '',
      table(
        ['statement', 'per call', 'mean ms', 'max ms', 'share of DB time'],
        statements
          .slice(0, 22)
          .map((s) => [
            `\`${s.sql.length > 110 ? `${s.sql.slice(0, 107)}...` : s.sql}\``.replace(/\|/g, '\\|'),
            (s.count / calls).toFixed(2),
            ms(s.totalUs / s.count),
            ms(s.maxUs),
            `${((s.totalUs / totalDbUs) * 100).toFixed(1)} %`,
          ]),
      ),
      '',
      table(
        ['Tollbooth CPU by owner (each sample goes to the nearest library on its stack: a socket write by pg counts for pg)', 'ms per call', 'share of busy'],
        window.cpu.owners.map((p) => [p.name, (p.ms / calls).toFixed(4), `${(p.share * 100).toFixed(1)} %`]),
      ),
      '',
    ];
    profileBrief.push(...brief);
    profileText.push(
      ...brief,
      table(
        ['CPU self time by package', 'ms per call', 'share of busy'],
        window.cpu.packages.map((p) => [p.name, (p.ms / calls).toFixed(4), `${(p.share * 100).toFixed(1)} %`]),
      ),
      '',
      table(
        ['CPU self time by function', 'ms per call', 'share of busy'],
        window.cpu.functions.map((p) => [`\`${p.name}\``, (p.ms / calls).toFixed(4), `${(p.share * 100).toFixed(1)} %`]),
      ),
      '',
      table(
        ['Tollbooth function (inclusive CPU, synchronous part)', 'ms per call', 'share of busy'],
        window.cpu.tollbooth.map((p) => [`\`${p.name}\``, (p.ms / calls).toFixed(4), `${(p.share * 100).toFixed(1)} %`]),
      ),
      '',
    );
  }

  const machineLines = [
    `- Date: ${machine.date}`,
    `- Machine: ${machine.cpu}; ${machine.memory}; ${machine.os}`,
    `- PostgreSQL ${machine.postgres} on 127.0.0.1 (default settings: synchronous_commit on); Node ${machine.node}; Portkey gateway ${portkeyVersion}`,
    `- Tollbooth measured: ${machine.tollbooth}`,
    `- Load generator, fake upstream, Tollbooth, Portkey and PostgreSQL all share these cores; the load generator is one Node process using undici keep-alive pools.`,
    `- Load average (1, 5, 15 min) before the run: ${loadAtStart}; at its end, this run's own processes included: ${loadAtEnd}. Other work on the machine distorts the figures: run it on a quiet machine.`,
  ];
  const chargeLines = [
    `Charge check after the measured phases (${charge.ok ? 'passed' : 'FAILED'}):`,
    '',
    ...charge.lines.map((line) => `    ${line}`),
    ...(profileCharge
      ? ['', `Charge check of the profile phase (${profileCharge.ok ? 'passed' : 'FAILED'}):`, '', ...profileCharge.lines.map((l) => `    ${l}`)]
      : []),
  ];
  const report = [
    ...machineLines,
    `- Re-run: \`${RERUN}\` from the repository root (after \`npm install --prefix bench/gateway\`); one call at a time n = ${N} after ${WARMUP} warm-up calls, throughput ${SECONDS} s per row after 1 s of warm-up.`,
    '',
    targetsTable,
    '',
    latencyTable,
    '',
    throughputTable,
    '',
    ...chargeLines,
    '',
  ];

  console.log(`\n${report.join('\n')}`);
  if (profileText.length) console.log(`\n### Profile\n\n${profileText.join('\n')}`);
  if (firstErrors.length) {
    console.log(`\nFirst errors:\n${firstErrors.map((e) => `  ${e}`).join('\n')}`);
    console.log(`\nLast lines Tollbooth logged:\n${tollbooth.output().slice(-3000)}`);
  }
  console.log(`\nRe-run: ${RERUN}   (quick smoke run: ${RERUN} --quick)`);

  if (WRITE_README) {
    writeReadme(
      [
        ...report,
        ...(profileBrief.length
          ? [
              '### Where Tollbooth spends its time (profile phase: a second Tollbooth process with the statement tap and the CPU profiler, which slow it down; read the shares, not the rates; the console output adds CPU self time by package and function)',
              '',
              ...profileBrief,
            ]
          : []),
      ].join('\n'),
    );
    console.log('Figures written to bench/README.md ("## Gateway").');
  }
  if (!charge.ok || (profileCharge && !profileCharge.ok)) process.exitCode = 1;
}

const README = path.join(ROOT, 'bench/README.md');
const BEGIN = '<!-- gateway-bench:begin (written by bench/gateway/run.ts) -->';
const END = '<!-- gateway-bench:end -->';

/** Replaces the generated block inside "## Gateway", creating the section (or the file) if needed. */
function writeReadme(block: string) {
  const generated = `${BEGIN}\n${block.trimEnd()}\n${END}`;
  const current = existsSync(README) ? readFileSync(README, 'utf8') : '# Benchmarks\n\nEach benchmark prints its figures and the command that re-runs it.\n';
  let next: string;
  if (current.includes(BEGIN) && current.includes(END)) {
    next = current.slice(0, current.indexOf(BEGIN)) + generated + current.slice(current.indexOf(END) + END.length);
  } else if (/^## Gateway\s*$/m.test(current)) {
    const start = current.search(/^## Gateway\s*$/m);
    const rest = current.slice(start);
    const nextSection = rest.slice(1).search(/^## /m);
    const end = nextSection >= 0 ? start + 1 + nextSection : current.length;
    next = `${current.slice(0, end).trimEnd()}\n\n${generated}\n${end < current.length ? `\n${current.slice(end)}` : ''}`;
  } else {
    next = `${current.trimEnd()}\n\n## Gateway\n\n\`bench/gateway/run.ts\`: Tollbooth's paid call path against a direct call and the Portkey gateway, on one loopback fake OpenAI upstream.\n\n${generated}\n`;
  }
  writeFileSync(README, next);
}

async function shutdown() {
  finished = true;
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  for (const cleanup of cleanups.reverse()) {
    try {
      await cleanup();
    } catch (error) {
      console.error(`cleanup: ${(error as Error).message}`);
    }
  }
  cleanups.length = 0;
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(async () => {
    await shutdown();
    process.exit();
  });
