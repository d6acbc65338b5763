// The gateway benchmark (issue 4, "Performance"; issue 15, "Fast everywhere"). One run, on this
// machine, against one loopback fake OpenAI-compatible upstream that answers at once (blocking, or
// OpenAI's SSE chat.completion.chunk stream):
//   direct    — the upstream itself (the floor every gateway adds to);
//   tollbooth — `npm start`'s command (server/package.json) on a fresh PostgreSQL database: real paid
//               calls (API key of a consumer, another user's live public app at 1 cent), charged
//               and recorded exactly as in production, on four paths: the Dify-style endpoint
//               (/api/app/{slug}/completion-messages) blocking and `response_mode: streaming`, and
//               the OpenAI-compatible endpoint (/v1/chat/completions, model = the app's slug)
//               blocking and `stream: true`;
//   portkey   — the Portkey AI gateway from npm (build/start-server.js --headless), as the peer,
//               blocking and `stream: true`.
// One call at a time (n calls after a warm-up, microsecond timing, keep-alive): a blocking call is
// timed to its last body byte; a streaming call to its first answer byte (the first byte of the
// answer's text, not the headers: both Tollbooth endpoints send their headers, and the OpenAI one
// its role chunk, before they call the upstream), and to its end. Throughput at 10 and 50
// connections (blocking) and at 50 (streaming). Each target is measured after the other (the
// targets can also take turns, in blocks of calls and in windows: decision 0055).
// Checks that Tollbooth charged exactly the successful calls of every path, then (unless
// --no-profile) restarts Tollbooth with a statement/CPU tap to show where the time goes. Prints
// the tables and writes them into bench/README.md ("## Gateway") on a full run (no --quick, no
// --only).
// --memory instead runs paid calls (the four paths in turn, 50 connections, as fast as they go) and
// compares the server process's VmRSS at rest (load paused, two full garbage collections through its
// inspector) after 10,000 calls and at the end (issue 15: within 20 %).
// --compare <checkout> instead measures two servers against each other, for a change too small for
// one run's noise: this checkout's (or BENCH_SERVER_ROOT's) server as A and that checkout's as B, each
// on a database of its own, in alternating throughput windows at the largest connection count on the
// first path selected (ABBA order, --rounds pairs), with the CPU per call of each side, the ratio of
// each pair, and the charge check of both.
// --tails instead times lone calls on the first path selected (Tollbooth only, BENCH_TAIL_CALLS, default
// 10,000, 4,000 with --quick) with a preload in the server that notes when each settlement statement
// went out and came back (settlement-tap.ts), and groups the calls by where they fell against those
// statements: what the added p99 is made of.
//
//   node --import tsx bench/gateway/run.ts [--quick] [--no-profile] [--no-readme] [--only blocking|streaming|openai|openai-blocking|openai-streaming]
//   node --import tsx bench/gateway/run.ts --memory [--memory-calls N] [--no-readme]
//   node --import tsx bench/gateway/run.ts --compare <checkout> [--rounds N] [--only <as above>]
//   node --import tsx bench/gateway/run.ts --tails [--quick] [--only <as above>]
//   env: DATABASE_URL (server URL, default postgres://postgres@127.0.0.1:5432/postgres),
//        BENCH_N (default 5000, 1000 with --quick), BENCH_WARMUP (5000), BENCH_SECONDS (10), BENCH_CONNECTIONS (10,50),
//        BENCH_LATENCY_BLOCK (0: one call at a time, each target after the other; N: the targets take turns in blocks of N calls),
//        BENCH_THROUGHPUT_ROUNDS (1: throughput, each target after the other; N: the targets take turns, N windows each),
//        BENCH_MEMORY_CONNECTIONS (50),
//        BENCH_SERVER_ROOT (another checkout whose server/ to measure, default this one),
//        BENCH_KEEP_DB=1 (keep the database afterwards, to inspect it),
//        BENCH_KEEP_PROFILES=<dir> (copy each profile window's V8 .cpuprofile there, to open in Chrome's DevTools)
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { Pool, WebSocket } from 'undici';
import { startTestIssuer, type TestIssuer } from '../../server/src/test-support/oidc-issuer.ts';
import { mapCompiledFrames } from '../compiled-frames.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** The checkout whose server is measured (default this one): compare a change against another checkout. */
const SERVER_ROOT = path.resolve(process.env.BENCH_SERVER_ROOT ?? ROOT);
const HERE = import.meta.dirname;

const PARTS = ['blocking', 'streaming', 'openai', 'openai-blocking', 'openai-streaming'] as const;
type Part = (typeof PARTS)[number];
const USAGE = `usage: node --import tsx bench/gateway/run.ts [--quick] [--no-profile] [--no-readme] [--only ${PARTS.join('|')}]
       node --import tsx bench/gateway/run.ts --memory [--memory-calls N] [--no-readme]
       node --import tsx bench/gateway/run.ts --compare <checkout> [--rounds N] [--only ${PARTS.join('|')}]
       node --import tsx bench/gateway/run.ts --tails [--quick] [--only ${PARTS.join('|')}]`;

function parseArguments(args: string[]) {
  const options = {
    quick: false,
    profile: true,
    readme: true,
    only: null as Part | null,
    memory: false,
    memoryCalls: 1_000_000,
    compare: null as string | null,
    rounds: 6,
    tails: false,
  };
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    const value = () => {
      const next = inline ?? args[++i];
      if (next === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
      return next;
    };
    if (flag === '--quick') options.quick = true;
    else if (flag === '--no-profile') options.profile = false;
    else if (flag === '--no-readme') options.readme = false;
    else if (flag === '--memory') options.memory = true;
    else if (flag === '--tails') options.tails = true;
    else if (flag === '--only') {
      const part = value();
      if (!(PARTS as readonly string[]).includes(part)) throw new Error(`--only takes ${PARTS.join(', ')}, not ${part}\n${USAGE}`);
      options.only = part as Part;
    } else if (flag === '--memory-calls') {
      const calls = Number(value());
      if (!Number.isInteger(calls) || calls < 20_000) {
        throw new Error(`--memory-calls must be an integer of at least 20,000 (RSS is compared over calls 10,000-15,000 and the last 5,000)\n${USAGE}`);
      }
      options.memoryCalls = calls;
      options.memory = true;
    } else if (flag === '--compare') {
      const root = path.resolve(value());
      if (!existsSync(path.join(root, 'server/src/main.ts')))
        throw new Error(`--compare takes a checkout of Tollbooth: ${root}/server/src/main.ts is missing\n${USAGE}`);
      options.compare = root;
    } else if (flag === '--rounds') {
      const rounds = Number(value());
      if (!Number.isInteger(rounds) || rounds < 1 || rounds > 100) throw new Error(`--rounds must be an integer from 1 to 100\n${USAGE}`);
      options.rounds = rounds;
    } else throw new Error(`unknown option ${args[i]}\n${USAGE}`);
  }
  if (options.memory && options.only) throw new Error(`--memory runs on its own; leave out --only\n${USAGE}`);
  if (options.memory && options.compare) throw new Error(`--memory and --compare are separate runs\n${USAGE}`);
  if (options.tails && (options.memory || options.compare)) throw new Error(`--tails runs on its own: leave out --memory and --compare\n${USAGE}`);
  return options;
}
const OPTIONS = (() => {
  try {
    return parseArguments(process.argv.slice(2));
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
})();
const QUICK = OPTIONS.quick;
const PROFILE = OPTIONS.profile && !OPTIONS.memory && !OPTIONS.compare && !OPTIONS.tails;
/** Only a full run writes its block: a quick or partial run would replace the quiet figures. */
const WRITE_README = OPTIONS.readme && !QUICK && !OPTIONS.only && !OPTIONS.compare && !OPTIONS.tails && (!OPTIONS.memory || OPTIONS.memoryCalls === 1_000_000);
const envInt = (name: string, fallback: number) => {
  const raw = process.env[name];
  const value = raw ? Number(raw) : fallback;
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
  return value;
};
const N = envInt('BENCH_N', QUICK ? 1000 : 5000);
// A server's JIT needs thousands of calls to reach its steady state: after 300, Tollbooth's lone
// p50 was twice its steady one, Portkey's 1.5 times, the fake upstream's 2-4 times (decision 0045).
const WARMUP = envInt('BENCH_WARMUP', 5000);
/**
 * One call at a time: 0 measures each target's calls in one go, one target after the other; more
 * makes the targets compared take turns in blocks of this many counted calls (decision 0055).
 */
const LATENCY_BLOCK = (() => {
  const value = Number(process.env.BENCH_LATENCY_BLOCK ?? 0);
  if (!Number.isInteger(value) || value < 0) throw new Error('BENCH_LATENCY_BLOCK must be a non-negative integer');
  return value;
})();
/** Throughput: 1 measures each target after the other; more makes the targets compared take turns in this many windows each (decision 0055). */
const THROUGHPUT_ROUNDS = envInt('BENCH_THROUGHPUT_ROUNDS', 1);
/** Uncounted calls before each throughput window. */
const WINDOW_WARMUP_MS = 300;
/** Uncounted calls that open each block of one call at a time. */
const BLOCK_WARMUP = 10;
/** Lone calls timed by --tails, after WARMUP: enough for a p99 of the smallest group (about a tenth of them). */
const TAIL_CALLS = envInt('BENCH_TAIL_CALLS', QUICK ? 4000 : 10_000);
/** How the targets compared shared the run's time, for the report. */
const MEASURED_IN_TURN =
  LATENCY_BLOCK === 0 && THROUGHPUT_ROUNDS === 1
    ? 'Each target is measured after the other.'
    : `One call at a time, ${LATENCY_BLOCK === 0 ? 'each target after the other' : `the targets take turns in blocks of ${LATENCY_BLOCK} calls, each after ${BLOCK_WARMUP} uncounted ones`}; ` +
      `throughput, ${THROUGHPUT_ROUNDS === 1 ? 'each target after the other' : `the targets take turns in ${THROUGHPUT_ROUNDS} windows each, each after ${WINDOW_WARMUP_MS} ms of uncounted calls`} (decision 0055).`;
const SECONDS = envInt('BENCH_SECONDS', QUICK ? 3 : 10);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '10,50').split(',').map((c) => Number.parseInt(c, 10));
if (CONNECTIONS.some((c) => !Number.isInteger(c) || c <= 0)) throw new Error('BENCH_CONNECTIONS must be positive integers separated by commas');
/** The issue's throughput targets are at the largest connection count; streams are measured there only. */
const MAX_CONNECTIONS = Math.max(...CONNECTIONS);
const MEMORY_CONNECTIONS = envInt('BENCH_MEMORY_CONNECTIONS', 50);
/** The first RSS reading (issue 15: "after 10,000"). */
const MEMORY_BASELINE_CALLS = 10_000;
/** RSS is compared as the median of the readings over this many calls from the first reading on and before the end. */
const MEMORY_WINDOW_CALLS = 5_000;
const SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PRICE_CENTS = 1;
/** Generous: a noisy machine slows a run several times; a memory run at ~500 calls/s needs calls × 2 ms. */
const RUN_DEADLINE_MS = OPTIONS.memory ? 10 * 60_000 + OPTIONS.memoryCalls * 2 : 20 * 60_000;
/** The command that re-runs this very run (the options given and the BENCH_* settings that change it). */
const RERUN = [
  ...Object.entries(process.env)
    .filter(([name]) => name.startsWith('BENCH_') && name !== 'BENCH_KEEP_DB')
    .map(([name, value]) => `${name}=${value}`),
  'node --import tsx bench/gateway/run.ts',
  ...process.argv.slice(2),
].join(' ');

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

type TargetName = 'direct' | 'direct-stream' | 'portkey' | 'portkey-stream' | 'tollbooth' | 'tollbooth-stream' | 'tollbooth-openai' | 'tollbooth-openai-stream';

/** What came back: 200 answers in full; other statuses; transport failures; 200 streams without their answer or end. */
interface Tally {
  ok: number;
  notOk: number;
  failed: number;
  incomplete: number;
}
const newTally = (): Tally => ({ ok: 0, notOk: 0, failed: 0, incomplete: 0 });

interface Target {
  name: TargetName;
  side: 'direct' | 'tollbooth' | 'portkey';
  /** How a stream ends when it is complete; null for a blocking call. */
  stream: 'openai' | 'dify' | null;
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  tally: Tally;
}

/** One of Tollbooth's paths with the direct call and the Portkey call it is compared with. */
interface PathSpec {
  /** The --only values that select it. */
  parts: Part[];
  label: string;
  tollbooth: TargetName;
  direct: TargetName;
  portkey: TargetName;
}
const PATHS: PathSpec[] = [
  { parts: ['blocking'], label: 'Dify blocking', tollbooth: 'tollbooth', direct: 'direct', portkey: 'portkey' },
  { parts: ['streaming'], label: 'Dify streaming', tollbooth: 'tollbooth-stream', direct: 'direct-stream', portkey: 'portkey-stream' },
  { parts: ['openai', 'openai-blocking'], label: 'OpenAI blocking', tollbooth: 'tollbooth-openai', direct: 'direct', portkey: 'portkey' },
  {
    parts: ['openai', 'openai-streaming'],
    label: 'OpenAI streaming',
    tollbooth: 'tollbooth-openai-stream',
    direct: 'direct-stream',
    portkey: 'portkey-stream',
  },
];

const firstErrors: string[] = [];
const noteError = (text: string) => {
  if (firstErrors.length < 10) firstErrors.push(text);
};

/** The upstream's first text chunk (bench/gateway/upstream.ts): its arrival is a stream's first answer byte. */
const FIRST_TEXT = Buffer.from('Hello from');
const elapsedUs = (started: bigint) => Number(process.hrtime.bigint() - started) / 1000;

function streamCompleted(kind: 'openai' | 'dify', text: string): boolean {
  if (kind === 'openai') return text.trimEnd().endsWith('data: [DONE]') && !text.includes('data: {"error"');
  return text.includes('"event":"message_end"') && !text.includes('"event":"error"');
}

/**
 * One call. Returns microseconds from `started` to the answer's first text byte (a stream) or to
 * its last byte (a blocking call), or -1 if it failed; counts the outcome in the target's tally.
 */
async function callOnce(pool: Pool, target: Target, started: bigint): Promise<number> {
  try {
    const { statusCode, body } = await pool.request({ method: 'POST', path: target.path, headers: target.headers, body: target.body });
    if (statusCode !== 200) {
      const text = await body.text();
      target.tally.notOk++;
      noteError(`${target.name} ${statusCode}: ${text.slice(0, 300)}`);
      return -1;
    }
    if (target.stream === null) {
      await body.dump({ limit: 1 << 20 });
      target.tally.ok++;
      return elapsedUs(started);
    }
    let firstUs = -1;
    const parts: Buffer[] = [];
    let tail: Buffer | null = null;
    for await (const part of body as AsyncIterable<Buffer>) {
      parts.push(part);
      if (firstUs >= 0) continue;
      const window: Buffer = tail ? Buffer.concat([tail, part]) : part;
      if (window.includes(FIRST_TEXT)) firstUs = elapsedUs(started);
      else tail = window.subarray(Math.max(0, window.length - FIRST_TEXT.length + 1));
    }
    const text = Buffer.concat(parts).toString();
    if (firstUs < 0 || !streamCompleted(target.stream, text)) {
      target.tally.incomplete++;
      noteError(`${target.name} incomplete stream: ${text.slice(-300)}`);
      return -1;
    }
    target.tally.ok++;
    return firstUs;
  } catch (error) {
    target.tally.failed++;
    noteError(`${target.name} request failed: ${(error as Error).message}`);
    return -1;
  }
}

const newPool = (origin: string, connections: number) =>
  new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 120_000, keepAliveMaxTimeout: 120_000, headersTimeout: 60_000, bodyTimeout: 60_000 });

function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

interface Stats {
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  max: number;
}

function stats(samples: Float64Array): Stats {
  const sorted = samples.slice().sort();
  return {
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    mean: samples.reduce((sum, v) => sum + v, 0) / samples.length,
    max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
  };
}

interface LatencyResult {
  target: TargetName;
  n: number;
  errors: number;
  /** To the first answer byte for a stream, to the last byte for a blocking call (the figure the targets use). */
  first: Stats;
  /** To the last byte. */
  total: Stats;
  /** The machine's time stolen by the hypervisor while this target's counted calls ran (StealMeter). */
  steal: number | null;
}

/** Successful calls' microseconds of one target, gathered one call at a time. */
class LatencySamples {
  readonly first: Float64Array;
  readonly total: Float64Array;
  count = 0;
  attempts = 0;
  readonly steal = new StealMeter();
  constructor(
    readonly target: Target,
    readonly n: number,
  ) {
    this.first = new Float64Array(n);
    this.total = new Float64Array(n);
  }
  /** One counted call (a failed one counts as an error). */
  async call(pool: Pool) {
    const started = process.hrtime.bigint();
    const firstUs = await callOnce(pool, this.target, started);
    const totalUs = elapsedUs(started);
    this.attempts++;
    if (firstUs < 0) return;
    this.first[this.count] = firstUs;
    this.total[this.count] = totalUs;
    this.count++;
  }
  result(): LatencyResult {
    const first = this.first.subarray(0, this.count);
    return {
      target: this.target.name,
      n: this.n,
      errors: this.n - this.count,
      first: stats(first),
      total: stats(this.total.subarray(0, this.count)),
      steal: this.steal.share(),
    };
  }
}

/**
 * One call at a time over one keep-alive connection per target. With LATENCY_BLOCK 0, each target's
 * warm-up and n calls in one go, one target after the other. Otherwise the targets compared with
 * each other take turns in blocks of LATENCY_BLOCK counted calls, so a machine whose speed drifts
 * over seconds moves every target alike (decision 0055 measured it, and why it is not the default):
 * each target is warmed up first, each block opens with BLOCK_WARMUP uncounted calls (a target left
 * idle while the others took their turn answers its first calls slower), and the order of the
 * targets rotates from block to block.
 */
async function measureLatencies(list: Target[], n: number, warmup: number): Promise<LatencyResult[]> {
  const pools = list.map((target) => newPool(target.origin, 1));
  try {
    const samples = list.map((target) => new LatencySamples(target, n));
    if (LATENCY_BLOCK === 0) {
      for (const [index, sample] of samples.entries()) {
        for (let i = 0; i < warmup; i++) await callOnce(pools[index]!, sample.target, process.hrtime.bigint());
        sample.steal.start();
        while (sample.attempts < n) await sample.call(pools[index]!);
        sample.steal.stop();
      }
      return samples.map((sample) => sample.result());
    }
    for (const [index, sample] of samples.entries()) for (let i = 0; i < warmup; i++) await callOnce(pools[index]!, sample.target, process.hrtime.bigint());
    for (let round = 0; samples.some((sample) => sample.attempts < n); round++) {
      for (let turn = 0; turn < samples.length; turn++) {
        const index = (round + turn) % samples.length;
        const sample = samples[index]!;
        if (sample.attempts >= n) continue;
        for (let i = 0; i < BLOCK_WARMUP; i++) await callOnce(pools[index]!, sample.target, process.hrtime.bigint());
        const end = Math.min(n, sample.attempts + LATENCY_BLOCK);
        sample.steal.start();
        while (sample.attempts < end) await sample.call(pools[index]!);
        sample.steal.stop();
      }
    }
    return samples.map((sample) => sample.result());
  } finally {
    await Promise.all(pools.map((pool) => pool.close()));
  }
}

interface ThroughputResult {
  target: TargetName;
  connections: number;
  seconds: number;
  calls: number;
  errors: number;
  perSecond: number;
  p50: number;
  p99: number;
  /** Median to the first answer byte (streams; the last byte for blocking calls). */
  firstP50: number;
  /**
   * CPU milliseconds per call over the recorded window, from /proc (Linux), with no profiler
   * attached: the process that answered (Tollbooth, Portkey, or the fake upstream for the direct
   * call) and, for Tollbooth, the PostgreSQL backends of its database.
   */
  cpuMsPerCall: { server: number | null; postgres: number | null };
  /** The machine's time stolen by the hypervisor over the recorded windows (StealMeter). */
  steal: number | null;
}

/** CPU ticks so far, by what is measured ("server", "postgres"); missing where /proc cannot say. */
type CpuSnapshot = () => Promise<{ server: number | null; postgres: number | null }>;

/** CPU ticks (user + system, every thread) of one process so far, or null off Linux or once it is gone. */
function processTicks(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/** `connections` workers on one target, each one call at a time on its own keep-alive connection, over one or more windows. */
class ThroughputSession {
  readonly pool: Pool;
  readonly latencies: number[] = [];
  readonly firsts: number[] = [];
  errors = 0;
  elapsedMs = 0;
  /** CPU ticks over the recorded windows, null where /proc could not say for one of them. */
  readonly ticks: { server: number | null; postgres: number | null } = { server: 0, postgres: 0 };
  readonly steal = new StealMeter();

  constructor(
    readonly target: Target,
    readonly connections: number,
    readonly cpu?: CpuSnapshot,
  ) {
    this.pool = newPool(target.origin, connections);
  }

  /** Calls for `durationMs`, counted (and the CPU read around them) only if `record`. */
  async window(durationMs: number, record: boolean) {
    const stopAt = performance.now() + durationMs;
    const worker = async () => {
      while (performance.now() < stopAt) {
        const started = process.hrtime.bigint();
        const firstUs = await callOnce(this.pool, this.target, started);
        if (!record) continue;
        if (firstUs >= 0) {
          this.latencies.push(elapsedUs(started));
          this.firsts.push(firstUs);
        } else this.errors++;
      }
    };
    const before = record ? await this.cpu?.() : undefined;
    if (record) this.steal.start();
    const began = performance.now();
    await Promise.all(Array.from({ length: this.connections }, worker));
    const elapsedMs = performance.now() - began;
    if (!record) return;
    this.steal.stop();
    const after = await this.cpu?.();
    this.elapsedMs += elapsedMs;
    for (const side of ['server', 'postgres'] as const) {
      const spent = before?.[side] != null && after?.[side] != null ? after[side] - before[side] : null;
      this.ticks[side] = spent === null || this.ticks[side] === null ? null : this.ticks[side] + spent;
    }
  }

  result(): ThroughputResult {
    const calls = this.latencies.length;
    const sorted = Float64Array.from(this.latencies).sort();
    const perCall = (ticks: number | null) => (this.cpu && ticks !== null && calls > 0 ? (ticks * 1000) / CLOCK_TICKS / calls : null);
    return {
      target: this.target.name,
      connections: this.connections,
      seconds: this.elapsedMs / 1000,
      calls,
      errors: this.errors,
      perSecond: calls / (this.elapsedMs / 1000),
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
      firstP50: percentile(Float64Array.from(this.firsts).sort(), 0.5),
      cpuMsPerCall: { server: perCall(this.ticks.server), postgres: perCall(this.ticks.postgres) },
      steal: this.steal.share(),
    };
  }

  close() {
    return this.pool.close();
  }
}

/** `connections` workers, each one call at a time on its own keep-alive connection, for `seconds`. */
async function measureThroughput(target: Target, connections: number, seconds: number, warmupSeconds = 1, cpu?: CpuSnapshot): Promise<ThroughputResult> {
  const session = new ThroughputSession(target, connections, cpu);
  try {
    await session.window(warmupSeconds * 1000, false);
    await session.window(seconds * 1000, true);
    return session.result();
  } finally {
    await session.close();
  }
}

/**
 * The throughput of targets compared with each other: one after the other (THROUGHPUT_ROUNDS 1),
 * or taking turns (decision 0055): each is warmed up for a second, then `seconds` are split into
 * THROUGHPUT_ROUNDS windows per target, each after WINDOW_WARMUP_MS of uncounted calls (the
 * connections ramp up, and the previous target's leftover work drains), the order rotating from
 * round to round.
 */
async function measureThroughputs(list: Target[], connections: number, seconds: number, cpuOf: (target: Target) => CpuSnapshot): Promise<ThroughputResult[]> {
  if (THROUGHPUT_ROUNDS === 1) {
    const results: ThroughputResult[] = [];
    for (const target of list) results.push(await measureThroughput(target, connections, seconds, 1, cpuOf(target)));
    return results;
  }
  const sessions = list.map((target) => new ThroughputSession(target, connections, cpuOf(target)));
  try {
    for (const session of sessions) await session.window(1000, false);
    const windowMs = (seconds * 1000) / THROUGHPUT_ROUNDS;
    for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
      for (let turn = 0; turn < sessions.length; turn++) {
        const session = sessions[(round + turn) % sessions.length]!;
        await session.window(WINDOW_WARMUP_MS, false);
        await session.window(windowMs, true);
      }
    }
    return sessions.map((session) => session.result());
  } finally {
    await Promise.all(sessions.map((session) => session.close()));
  }
}

/** VmRSS and VmHWM (peak) of a process, in KiB (Linux /proc). */
function memoryOf(pid: number): { rssKiB: number; peakKiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
    if (!match) throw new Error(`/proc/${pid}/status has no ${name}`);
    return Number(match[1]);
  };
  return { rssKiB: field('VmRSS'), peakKiB: field('VmHWM') };
}

interface MemorySample {
  calls: number;
  seconds: number;
  rssKiB: number;
  peakKiB: number;
}

/** A DevTools protocol session with a process started with --inspect (HeapProfiler, Runtime). */
interface Inspector {
  send: (method: string, params?: Record<string, unknown>) => Promise<Record<string, unknown>>;
  close: () => void;
}

/** Attaches to the inspector a process listens on at 127.0.0.1:port (its first target). */
async function attachInspector(port: number): Promise<Inspector> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (!url) throw new Error(`the inspector on port ${port} lists no target`);
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve();
    socket.onerror = () => reject(new Error(`cannot open ${url}`));
  });
  let lastId = 0;
  const waiting = new Map<number, { resolve: (result: Record<string, unknown>) => void; reject: (error: Error) => void }>();
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: Record<string, unknown>; error?: { message: string } };
    const waiter = message.id === undefined ? undefined : waiting.get(message.id);
    if (!waiter) return;
    waiting.delete(message.id!);
    if (message.error) waiter.reject(new Error(message.error.message));
    else waiter.resolve(message.result ?? {});
  };
  return {
    send: (method, params = {}) =>
      new Promise((resolve, reject) => {
        const id = ++lastId;
        waiting.set(id, { resolve, reject });
        socket.send(JSON.stringify({ id, method, params }));
      }),
    close: () => socket.close(),
  };
}

/** The server's memory with no call in flight, its settlements committed and two full collections done. */
interface QuietReading {
  calls: number;
  rssKiB: number;
  /** The range of the ten VmRSS readings the median is taken from. */
  minKiB: number;
  maxKiB: number;
  heapUsedKiB: number;
  heapTotalKiB: number;
  externalKiB: number;
}

/**
 * Reads the server's memory at rest: once the load has stopped and every hold is settled, two full
 * garbage collections (HeapProfiler.collectGarbage), then the median of ten VmRSS readings 100 ms
 * apart, and V8's own figures. Both ends of the target are read so, at the same point of V8's cycle:
 * under load one reading lands anywhere in a cycle far longer than the target's windows (decision 0063).
 */
async function quietReading(inspector: Inspector, pid: number, db: pg.Client, calls: number): Promise<QuietReading> {
  await settled(db);
  await inspector.send('HeapProfiler.collectGarbage');
  await sleep(300);
  await inspector.send('HeapProfiler.collectGarbage');
  await sleep(1000);
  const rss: number[] = [];
  for (let i = 0; i < 10; i++) {
    rss.push(memoryOf(pid).rssKiB);
    await sleep(100);
  }
  const evaluated = (await inspector.send('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true })) as {
    result: { value: string };
  };
  const usage = JSON.parse(evaluated.result.value) as { heapUsed: number; heapTotal: number; external: number };
  const sorted = Float64Array.from(rss).sort();
  return {
    calls,
    rssKiB: percentile(sorted, 0.5),
    minKiB: sorted[0]!,
    maxKiB: sorted.at(-1)!,
    heapUsedKiB: usage.heapUsed / 1024,
    heapTotalKiB: usage.heapTotal / 1024,
    externalKiB: usage.external / 1024,
  };
}

/**
 * `total` paid calls over `connections` connections, the given targets in turn, as fast as they go;
 * reads the server's memory when MEMORY_BASELINE_CALLS, each tenth of `total` and `total` calls have
 * completed (while the load is still on), and at rest (quietReading) after MEMORY_BASELINE_CALLS and
 * after `total`: the load pauses for the first and ends for the second.
 */
async function measureMemory(
  targets: Target[],
  pid: number,
  total: number,
  connections: number,
  progress: (text: string) => void,
  atRest: (calls: number) => Promise<QuietReading>,
) {
  const pool = newPool(targets[0]!.origin, connections);
  const checkpoints = [...new Set([MEMORY_BASELINE_CALLS, ...Array.from({ length: 10 }, (_, i) => Math.round((total * (i + 1)) / 10))])]
    .filter((calls) => calls >= MEMORY_BASELINE_CALLS && calls <= total)
    .sort((a, b) => a - b);
  const samples: MemorySample[] = [];
  /** VmRSS every 100 ms with the calls completed by then: one reading can land anywhere in a GC cycle. */
  const readings: { calls: number; rssKiB: number }[] = [];
  const quiet: QuietReading[] = [];
  let issued = 0;
  let completed = 0;
  let errors = 0;
  let pausedMs = 0;
  const began = performance.now();
  let resting = false;
  const sampler = setInterval(() => {
    if (!resting) readings.push({ calls: completed, rssKiB: memoryOf(pid).rssKiB });
  }, 100);
  /** Runs calls until `until` have been issued and every one of them has completed. */
  const callUntil = async (until: number) => {
    const worker = async () => {
      while (issued < until && errors <= 1000) {
        const target = targets[issued % targets.length]!;
        issued++;
        if ((await callOnce(pool, target, process.hrtime.bigint())) < 0) errors++;
        completed++;
        while (samples.length < checkpoints.length && completed >= checkpoints[samples.length]!) {
          const seconds = (performance.now() - began - pausedMs) / 1000;
          samples.push({ calls: checkpoints[samples.length]!, seconds, ...memoryOf(pid) });
          const last = samples.at(-1)!;
          progress(
            `memory: ${int(last.calls)} calls in ${last.seconds.toFixed(0)} s (${int(last.calls / last.seconds)} calls/s), ` +
              `VmRSS ${mib(last.rssKiB)} MiB, VmHWM ${mib(last.peakKiB)} MiB, errors ${errors}`,
          );
        }
      }
    };
    await Promise.all(Array.from({ length: connections }, worker));
  };
  const rest = async () => {
    const pausedAt = performance.now();
    resting = true;
    const reading = await atRest(completed);
    resting = false;
    quiet.push(reading);
    progress(
      `memory at rest after ${int(reading.calls)} calls: VmRSS ${mib(reading.rssKiB)} MiB, V8 heap used ${mib(reading.heapUsedKiB)} ` +
        `of ${mib(reading.heapTotalKiB)} MiB, external ${mib(reading.externalKiB)} MiB`,
    );
    pausedMs += performance.now() - pausedAt;
  };
  try {
    await callUntil(Math.min(MEMORY_BASELINE_CALLS, total));
    await rest();
    await callUntil(total);
    if (errors <= 1000) await rest();
  } finally {
    clearInterval(sampler);
    await pool.close();
  }
  const seconds = (performance.now() - began - pausedMs) / 1000;
  /** The median of the readings taken while calls [from, to) were completing, with their range. */
  const window = (from: number, to: number) => {
    const inside = readings.filter((r) => r.calls >= from && r.calls < to).map((r) => r.rssKiB);
    const sorted = Float64Array.from(inside).sort();
    return { from, to, count: sorted.length, medianKiB: percentile(sorted, 0.5), minKiB: sorted[0] ?? Number.NaN, maxKiB: sorted.at(-1) ?? Number.NaN };
  };
  const windows = {
    baseline: window(MEMORY_BASELINE_CALLS, MEMORY_BASELINE_CALLS + MEMORY_WINDOW_CALLS),
    end: window(total - MEMORY_WINDOW_CALLS, total + 1),
  };
  return { samples, windows, quiet, completed, errors, seconds, stoppedEarly: errors > 1000 };
}

/** What the fake upstream answers; every target must pass it on whole. */
const EXPECTED_TEXT = 'Hello from the benchmark upstream.';

/** Calls a target once (fetch, outside the tallies) and says what is wrong with its answer, or null. */
async function answerProblem(target: Target): Promise<string | null> {
  const response = await fetch(target.origin + target.path, { method: 'POST', headers: target.headers, body: target.body });
  const text = await response.text();
  if (response.status !== 200) return `${response.status} ${text.slice(0, 500)}`;
  let answer: string | undefined;
  try {
    if (target.stream === null) {
      const parsed = JSON.parse(text) as { answer?: string; choices?: { message?: { content?: string } }[] };
      answer = parsed.answer ?? parsed.choices?.[0]?.message?.content;
    } else {
      if (!streamCompleted(target.stream, text)) return `the stream did not end as a complete ${target.stream} stream: ${text.slice(-500)}`;
      answer = '';
      for (const line of text.split('\n')) {
        if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
        const event = JSON.parse(line.slice(6)) as { event?: string; answer?: string; choices?: { delta?: { content?: string } }[] };
        answer += target.stream === 'dify' ? (event.event === 'message' ? (event.answer ?? '') : '') : (event.choices?.[0]?.delta?.content ?? '');
      }
    }
  } catch (error) {
    return `an answer that does not parse (${(error as Error).message}): ${text.slice(0, 500)}`;
  }
  return answer === EXPECTED_TEXT ? null : `the answer ${JSON.stringify(answer)} instead of ${JSON.stringify(EXPECTED_TEXT)}: ${text.slice(0, 500)}`;
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
  /** The app's successful calls that a call_charge ledger transaction charged, and those transactions. */
  charged: number;
  charges: number;
  /** call_charge transactions that no call refers to: money moved for no recorded call. */
  orphans: number;
  ledgerSum: number;
  apiCredits: number;
  /** The creator's credits, which pay the model cost a 1-cent price does not cover (decision 0025). */
  ownerCredits: number;
  /** The model_costs ledger account, the creator's running model cost (µ$) and the app's recorded model cost (µ$). */
  modelCosts: number;
  meterMicros: number;
  recordedMicros: number;
}

async function snapshot(db: pg.Client, origin: string, setup: Setup): Promise<MoneySnapshot> {
  // The API read first: Tollbooth answers a paid call before its settlement commits (decision 0024),
  // and its API reads wait for the calls it answered, so the database read after it sees them all.
  const balance = await api<{ credits_cents: number }>(origin, 'GET', '/api/billing/balance/', setup.consumerToken);
  // A call refers to the call_charge transaction that charged it, shared by the calls of its batch
  // (decision 0062); a checkout measured with --compare from before that has one per call, whose
  // reference is call:<invocation id>.
  const perBatch = (await db.query(`SELECT 1 FROM information_schema.columns WHERE table_name = 'invocations' AND column_name = 'ledger_transaction_id'`)).rows
    .length;
  const charging = perBatch
    ? `(SELECT count(*) FROM invocations i JOIN ledger_transactions t ON t.id = i.ledger_transaction_id AND t.kind = 'call_charge'
        WHERE i.app_id = $3 AND i.status = 'success')::bigint AS charged,
       (SELECT count(*) FROM ledger_transactions t WHERE t.kind = 'call_charge'
        AND NOT EXISTS (SELECT 1 FROM invocations i WHERE i.ledger_transaction_id = t.id))::bigint AS orphans`
    : `(SELECT count(*) FROM invocations i JOIN ledger_transactions t ON t.reference = 'call:' || i.id::text AND t.kind = 'call_charge'
        WHERE i.app_id = $3 AND i.status = 'success')::bigint AS charged,
       (SELECT count(*) FROM ledger_transactions t WHERE t.kind = 'call_charge'
        AND NOT EXISTS (SELECT 1 FROM invocations i WHERE i.id = substring(t.reference FROM 6)::uuid))::bigint AS orphans`;
  const { rows } = await db.query(
    `SELECT
       (SELECT balance_cents FROM ledger_accounts WHERE kind = 'user_credits' AND user_id = $1)::bigint AS credits,
       (SELECT held_cents FROM ledger_accounts WHERE kind = 'user_credits' AND user_id = $1)::bigint AS held,
       coalesce((SELECT balance_cents FROM ledger_accounts WHERE kind = 'creator_earnings' AND user_id = $2), 0)::bigint AS earnings,
       (SELECT count(*) FROM credit_holds)::bigint AS holds,
       (SELECT count(*) FROM invocations WHERE app_id = $3 AND status = 'success')::bigint AS successes,
       (SELECT count(*) FROM invocations WHERE app_id = $3 AND status = 'error')::bigint AS failures,
       (SELECT count(*) FROM ledger_transactions WHERE kind = 'call_charge')::bigint AS charges,
       ${charging},
       (SELECT coalesce(sum(amount_cents), 0) FROM ledger_entries)::bigint AS ledger_sum,
       coalesce((SELECT balance_cents FROM ledger_accounts WHERE kind = 'user_credits' AND user_id = $2), 0)::bigint AS owner_credits,
       (SELECT balance_cents FROM ledger_accounts WHERE kind = 'model_costs')::bigint AS model_costs,
       coalesce((SELECT micros FROM model_cost_meters WHERE user_id = $2), 0)::bigint AS meter_micros,
       (SELECT coalesce(sum(model_cost_micros), 0) FROM invocations WHERE app_id = $3)::bigint AS recorded_micros`,
    [setup.consumerId, setup.ownerId, setup.appId],
  );
  const row = rows[0] as Record<string, string>;
  return {
    credits: Number(row.credits),
    held: Number(row.held),
    earnings: Number(row.earnings),
    holds: Number(row.holds),
    successes: Number(row.successes),
    failures: Number(row.failures),
    charged: Number(row.charged),
    charges: Number(row.charges),
    orphans: Number(row.orphans),
    ledgerSum: Number(row.ledger_sum),
    apiCredits: balance.credits_cents,
    ownerCredits: Number(row.owner_credits),
    modelCosts: Number(row.model_costs),
    meterMicros: Number(row.meter_micros),
    recordedMicros: Number(row.recorded_micros),
  };
}

interface ChargeCheck {
  ok: boolean;
  lines: string[];
}

/**
 * Waits (up to 10 s) until no credit hold is left: a process keeps its caller's credit lease until it
 * has been idle for a second, so right after a phase that ends with Tollbooth's calls one is still
 * held. The charge check still fails if one stays.
 */
async function settled(db: pg.Client) {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const { rows } = await db.query<{ holds: string }>('SELECT count(*) AS holds FROM credit_holds');
    if (Number(rows[0]!.holds) === 0) return;
    await sleep(200);
  }
}

function addTallies(tallies: Tally[]): Tally {
  const sum = newTally();
  for (const tally of tallies) {
    sum.ok += tally.ok;
    sum.notOk += tally.notOk;
    sum.failed += tally.failed;
    sum.incomplete += tally.incomplete;
  }
  return sum;
}

function subtractTally(after: Tally, before: Tally): Tally {
  return {
    ok: after.ok - before.ok,
    notOk: after.notOk - before.notOk,
    failed: after.failed - before.failed,
    incomplete: after.incomplete - before.incomplete,
  };
}

/** Every 200 answer of every Tollbooth path charged once, nothing else charged, no hold left, the ledger balanced. */
function checkCharges(before: MoneySnapshot, after: MoneySnapshot, byPath: [string, Tally][]): ChargeCheck {
  const tally = addTallies(byPath.map(([, t]) => t));
  const successes = tally.ok;
  const expected = successes * PRICE_CENTS;
  const paths = byPath
    .filter(([, t]) => t.ok + t.notOk + t.failed + t.incomplete > 0)
    .map(([label, t]) => `${label} ${t.ok}`)
    .join(', ');
  const checks: [string, boolean][] = [
    [
      `HTTP 200 answers from Tollbooth: ${successes}${paths ? ` (${paths})` : ''}; non-200: ${tally.notOk}, transport failures: ${tally.failed}, ` +
        `streams cut short or ending in an error: ${tally.incomplete}`,
      tally.failed === 0 && tally.incomplete === 0,
    ],
    [
      `consumer credits: ${before.credits} → ${after.credits} cents, delta ${after.credits - before.credits} = -(${successes} × ${PRICE_CENTS})`,
      before.credits - after.credits === expected,
    ],
    [`GET /api/billing/balance/ credits_cents delta ${after.apiCredits - before.apiCredits}`, before.apiCredits - after.apiCredits === expected],
    [
      `model cost recorded: ${after.recordedMicros - before.recordedMicros} µ$ (the creator's meter: ${after.meterMicros - before.meterMicros} µ$), ` +
        `posted: ${after.modelCosts - before.modelCosts} cents = the meter's cents rounded up`,
      after.recordedMicros - before.recordedMicros === after.meterMicros - before.meterMicros &&
        after.modelCosts - before.modelCosts === Math.ceil(after.meterMicros / 10_000) - Math.ceil(before.meterMicros / 10_000),
    ],
    [
      `creator net: earnings delta ${after.earnings - before.earnings} + credits delta ${after.ownerCredits - before.ownerCredits} = ` +
        `${expected} paid − ${after.modelCosts - before.modelCosts} model cost`,
      after.earnings - before.earnings + (after.ownerCredits - before.ownerCredits) === expected - (after.modelCosts - before.modelCosts),
    ],
    [`successful invocations recorded: ${after.successes - before.successes}`, after.successes - before.successes === successes],
    [`failed invocations recorded: ${after.failures - before.failures} (non-200 answers: ${tally.notOk})`, after.failures - before.failures === tally.notOk],
    [
      `calls charged by a call_charge ledger transaction: ${after.charged - before.charged} (in ${after.charges - before.charges} transactions); ` +
        `transactions no call refers to: ${after.orphans}`,
      after.charged - before.charged === successes && after.orphans === 0,
    ],
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
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }; children?: number[] }[];
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
  mapCompiledFrames(profile.nodes);
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

/**
 * A reader of the CPU ticks a database's backends spent since the reader's first call, pid by pid: a
 * backend that exits in between does not take its earlier ticks off the sum (it takes only its last
 * ones with it), and one that starts counts from its start. Null where /proc shows none.
 */
function backendCpu(db: pg.Client, database: string): () => Promise<number | null> {
  let first: Map<number, number> | null = null;
  return async () => {
    const now = await backendTicks(db, database);
    if (now.size === 0) return null;
    first ??= now;
    let spent = 0;
    for (const [pid, ticks] of now) spent += ticks - (first.get(pid) ?? 0);
    return spent;
  };
}

/**
 * Busy, stolen and total jiffies of the whole machine (Linux /proc/stat). Steal is time the
 * hypervisor gave this VM's virtual CPUs to someone else while they had work: the run's processes
 * wait through it, and their CPU figures do not count it.
 */
function machineTicks(): { busy: number; steal: number; total: number } | null {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = cpu.reduce((sum, v) => sum + v, 0);
    const idle = (cpu[3] ?? 0) + (cpu[4] ?? 0);
    return { busy: total - idle, steal: cpu[7] ?? 0, total };
  } catch {
    return null;
  }
}

/**
 * The share of the machine's time stolen by the hypervisor over the spans between start() and
 * stop(), summed; null off Linux. A run whose windows lost more than a few percent measured a
 * slower machine than its neighbours did (bench/README.md, 2026-12-03).
 */
class StealMeter {
  private steal = 0;
  private total = 0;
  private from: { steal: number; total: number } | null = null;
  private known = true;
  start() {
    this.from = machineTicks();
    if (!this.from) this.known = false;
  }
  stop() {
    const to = machineTicks();
    if (!this.from || !to) this.known = false;
    else {
      this.steal += to.steal - this.from.steal;
      this.total += to.total - this.from.total;
    }
    this.from = null;
  }
  share(): number | null {
    return this.known && this.total > 0 ? this.steal / this.total : null;
  }
}

/** The table cell of a steal share: "4.2 %", or "-" where it is unknown. */
const stealCell = (share: number | null) => (share === null ? '-' : `${(100 * share).toFixed(1)} %`);
/** ", host steal 4.2 %" for a phase line, or nothing where it is unknown. */
const stealText = (share: number | null) => (share === null ? '' : `, host steal ${stealCell(share)}`);

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
const mib = (kib: number) => (kib / 1024).toFixed(1);

/** A Markdown table: the first `textColumns` columns left-aligned, the others (figures) right-aligned. */
function table(headers: string[], rows: (string | number)[][], textColumns = 1): string {
  const cells = rows.map((row) => row.map(String));
  const widths = headers.map((header, i) => Math.max(header.length, ...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) => `| ${row.map((cell, i) => (i < textColumns ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(' | ')} |`;
  return [line(headers), `|${widths.map((w, i) => (i < textColumns ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...cells.map(line)].join(
    '\n',
  );
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
// Memory (--memory): issue 15's "RSS of one server process after 1 million paid calls within 20% of
// its RSS after 10,000".

interface MemoryRun {
  tollbooth: Child;
  tollboothTargets: Target[];
  phase: (text: string) => void;
  db: pg.Client;
  tollboothOrigin: string;
  setup: Setup;
  moneyBefore: MoneySnapshot;
  tallyByPath: () => [string, Tally][];
  pgVersion: string;
  loadAtStart: string;
  /** The port Tollbooth's inspector listens on (started with --inspect for the memory run). */
  inspectorPort: number;
}

async function runMemory(run: MemoryRun) {
  const pid = run.tollbooth.process.pid;
  if (pid === undefined) throw new Error('the Tollbooth process has no pid');
  const total = OPTIONS.memoryCalls;
  const atStart = memoryOf(pid);
  run.phase(
    `memory: ${int(total)} paid calls over ${MEMORY_CONNECTIONS} connections, the four paths in turn; Tollbooth pid ${pid}, VmRSS ${mib(atStart.rssKiB)} MiB before the first call`,
  );
  const inspector = await attachInspector(run.inspectorPort);
  const outcome = await (async () => {
    try {
      return await measureMemory(run.tollboothTargets, pid, total, MEMORY_CONNECTIONS, run.phase, (calls) => quietReading(inspector, pid, run.db, calls));
    } finally {
      inspector.close();
    }
  })();
  if (outcome.stoppedEarly) run.phase(`memory: stopped after ${outcome.errors} errors`);
  await sleep(2000);
  const idle = memoryOf(pid);
  await settled(run.db);
  run.phase(`memory: VmRSS ${mib(idle.rssKiB)} MiB two seconds after the load stopped`);
  const moneyAfter = await snapshot(run.db, run.tollboothOrigin, run.setup);
  const charge = checkCharges(run.moneyBefore, moneyAfter, run.tallyByPath());
  run.phase(`charge check ${charge.ok ? 'passed' : 'FAILED'}`);

  const baseline = outcome.samples.find((s) => s.calls === MEMORY_BASELINE_CALLS);
  const { baseline: first, end: last } = outcome.windows;
  const [restFirst, restLast] = outcome.quiet;
  const complete = !outcome.stoppedEarly && outcome.completed === total && restFirst !== undefined && restLast !== undefined;
  const ratio = complete ? restLast.rssKiB / restFirst.rssKiB : Number.NaN;
  const loadRatio = last.medianKiB / first.medianKiB;
  const pointRatio = baseline && outcome.samples.at(-1) ? outcome.samples.at(-1)!.rssKiB / baseline.rssKiB : Number.NaN;
  const smoke = total < 1_000_000 ? ` (a shortened run: the target asks for 1,000,000; this ran ${int(total)})` : '';
  const windowText = (w: typeof first) =>
    `median of ${w.count} readings over calls ${int(w.from)}–${int(Math.min(w.to, total))}: ${mib(w.medianKiB)} MiB (${mib(w.minKiB)}–${mib(w.maxKiB)})`;
  const targetsTable = table(
    ['target (issue 15)', 'goal', 'measured', 'verdict'],
    [
      [
        `VmRSS after ${int(total)} paid calls vs after ${int(MEMORY_BASELINE_CALLS)}, at rest${smoke}`,
        'within 20 %',
        complete
          ? `${mib(restLast.rssKiB)} / ${mib(restFirst.rssKiB)} MiB = ${ratio.toFixed(3)}× (under load: medians ${loadRatio.toFixed(3)}×, single readings ${pointRatio.toFixed(3)}×)`
          : 'incomplete run',
        complete && Math.abs(ratio - 1) <= 0.2 ? 'met' : '**not met**',
      ],
    ],
  );
  const restTable = table(
    ['at rest after', 'VmRSS MiB (median of 10)', 'range MiB', 'V8 heap used MiB', 'V8 heap total MiB', 'external MiB'],
    outcome.quiet.map((q) => [
      `${int(q.calls)} calls`,
      mib(q.rssKiB),
      `${mib(q.minKiB)}–${mib(q.maxKiB)}`,
      mib(q.heapUsedKiB),
      mib(q.heapTotalKiB),
      mib(q.externalKiB),
    ]),
  );
  const samplesTable = table(
    ['paid calls completed', 'seconds', 'calls/s so far', 'VmRSS MiB', 'VmHWM (peak) MiB', 'vs 10,000'],
    [
      ['0 (idle, before)', '-', '-', mib(atStart.rssKiB), mib(atStart.peakKiB), '-'],
      ...outcome.samples.map((s) => [
        int(s.calls),
        s.seconds.toFixed(1),
        int(s.calls / s.seconds),
        mib(s.rssKiB),
        mib(s.peakKiB),
        baseline ? `${(s.rssKiB / baseline.rssKiB).toFixed(3)}×` : '-',
      ]),
      [
        `${int(outcome.completed)} (idle, 2 s after)`,
        '-',
        '-',
        mib(idle.rssKiB),
        mib(idle.peakKiB),
        baseline ? `${(idle.rssKiB / baseline.rssKiB).toFixed(3)}×` : '-',
      ],
    ],
  );
  const report = [
    ...describeMachine(machineInfo(run.pgVersion), run.loadAtStart, null),
    `- Re-run: \`${RERUN}\` from the repository root. ${int(total)} paid calls over ${MEMORY_CONNECTIONS} connections as fast as they go, ` +
      `Dify blocking, Dify streaming, OpenAI blocking and OpenAI streaming in turn; ${int(outcome.completed)} completed in ${outcome.seconds.toFixed(0)} s ` +
      `(${int(outcome.completed / outcome.seconds)} calls/s, not counting the pause at ${int(MEMORY_BASELINE_CALLS)}), ${outcome.errors} errors. ` +
      'VmRSS and VmHWM are read from /proc/<pid>/status of the one Tollbooth process (started with --inspect for this run).',
    `- The target compares the process at rest (decision 0063): after ${int(MEMORY_BASELINE_CALLS)} calls the load pauses, and after the last it ends; ` +
      'once every hold is settled, two full garbage collections (DevTools HeapProfiler.collectGarbage), then the median of ten VmRSS readings 100 ms apart. ' +
      "Under load, one reading lands anywhere in V8's garbage-collection cycle, which here is far longer than a few seconds.",
    `- Under load, for comparison (VmRSS every 100 ms): after ${int(MEMORY_BASELINE_CALLS)}, ${windowText(first)} (it starts right after the pause's collections); ` +
      `at the end, ${windowText(last)}. The table below reads VmRSS under load at each tenth of the run; its first row is read before the pause.`,
    '',
    targetsTable,
    '',
    restTable,
    '',
    samplesTable,
    '',
    `Charge check over the memory run (${charge.ok ? 'passed' : 'FAILED'}):`,
    '',
    ...charge.lines.map((line) => `    ${line}`),
    '',
  ];
  console.log(`\n${report.join('\n')}`);
  if (firstErrors.length) {
    console.log(`\nFirst errors:\n${firstErrors.map((e) => `  ${e}`).join('\n')}`);
    console.log(`\nLast lines Tollbooth logged:\n${run.tollbooth.output().slice(-3000)}`);
  }
  console.log(`\nRe-run: ${RERUN}`);
  if (WRITE_README) {
    writeReadme(MEMORY_BLOCK, report.join('\n'));
    console.log('Figures written to bench/README.md ("## Gateway", memory block).');
  }
  if (!charge.ok || !complete) process.exitCode = 1;
}

// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// Tails (--tails): where a lone call's slow answers fall against the settlement statements

interface TailCall {
  start: bigint;
  /** To the first answer byte for a stream, to the last byte for a blocking call. */
  us: number;
}

/** Where a call fell against the settlement statements (sent → answered) of its time. */
const TAIL_GROUPS = [
  ['no statement in flight', 'none'],
  ['a statement went out during the call', 'start'],
  ['a statement was in flight all through the call', 'inside'],
  ['a statement came back during the call', 'end'],
  ['one went out and came back during the call', 'both'],
] as const;
type TailGroup = (typeof TAIL_GROUPS)[number][1];

function tailGroupOf(call: TailCall, spans: [bigint, bigint][], from: number): { group: TailGroup; next: number } {
  const end = call.start + BigInt(Math.round(call.us * 1000));
  let index = from;
  while (index < spans.length && spans[index]![1] < call.start) index++;
  const span = spans[index];
  if (!span || span[0] > end) return { group: 'none', next: index };
  const sent = span[0] >= call.start;
  const answered = span[1] <= end;
  return { group: sent && answered ? 'both' : sent ? 'start' : answered ? 'end' : 'inside', next: index };
}

async function runTails(run: {
  label: string;
  target: Target;
  tollbooth: Child;
  tapDir: string;
  phase: (text: string) => void;
  db: pg.Client;
  tollboothOrigin: string;
  setup: Setup;
  moneyBefore: MoneySnapshot;
}) {
  const { target } = run;
  const pool = newPool(target.origin, 1);
  const calls: TailCall[] = [];
  const steal = new StealMeter();
  try {
    for (let i = 0; i < WARMUP; i++) await callOnce(pool, target, process.hrtime.bigint());
    run.phase(`tails: ${int(TAIL_CALLS)} ${run.label} calls, one at a time`);
    steal.start();
    for (let i = 0; i < TAIL_CALLS; i++) {
      const start = process.hrtime.bigint();
      const us = await callOnce(pool, target, start);
      if (us >= 0) calls.push({ start, us });
    }
    steal.stop();
  } finally {
    await pool.close();
  }
  run.tollbooth.process.kill('SIGUSR2');
  const spansFile = path.join(run.tapDir, 'settlements.json');
  await waitFor('the settlement tap', async () => (existsSync(path.join(run.tapDir, 'settlements.done')) ? true : null), 10_000);
  const first = calls[0]?.start ?? 0n;
  const spans = (JSON.parse(readFileSync(spansFile, 'utf8')) as [string, string][])
    .map(([sent, answered]): [bigint, bigint] => [BigInt(sent), BigInt(answered)])
    .filter(([, answered]) => answered >= first)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  await settled(run.db);
  const charge = checkCharges(run.moneyBefore, await snapshot(run.db, run.tollboothOrigin, run.setup), [[run.label, target.tally]]);

  const byGroup = new Map<TailGroup, number[]>(TAIL_GROUPS.map(([, group]) => [group, []]));
  let from = 0;
  for (const call of calls) {
    const { group, next } = tailGroupOf(call, spans, from);
    from = next;
    byGroup.get(group)!.push(call.us);
  }
  const sortedStats = (values: number[]) => stats(Float64Array.from(values));
  const all = sortedStats(calls.map((call) => call.us));
  const slowUs = 2000;
  const slow = calls.filter((call) => call.us >= slowUs).length;
  const slowNone = byGroup.get('none')!.filter((us) => us >= slowUs).length;
  const inWindow = spans.filter(([sent]) => sent >= first);
  const durations = inWindow.length > 0 ? sortedStats(inWindow.map(([sent, answered]) => Number(answered - sent) / 1000)) : null;
  const row = (label: string, values: number[]) => {
    const figures = values.length > 0 ? sortedStats(values) : null;
    return [
      label,
      int(values.length),
      `${((100 * values.length) / Math.max(1, calls.length)).toFixed(1)} %`,
      figures ? ms(figures.p50) : '-',
      figures ? ms(figures.p90) : '-',
      figures ? ms(figures.p99) : '-',
    ];
  };
  const lines = [
    `### Tails: ${run.label}, one call at a time, against the settlement statements`,
    '',
    `- ${int(calls.length)} calls after ${int(WARMUP)} warm-up calls (${target.stream ? 'to the first answer byte' : 'to the last byte'}): p50 ${ms(all.p50)}, p90 ${ms(all.p90)}, p99 ${ms(all.p99)} ms${stealText(steal.share())}.`,
    inWindow.length === 0
      ? '- No settlement statement went out meanwhile.'
      : `- ${int(inWindow.length)} settlement statements went out meanwhile (${(calls.length / inWindow.length).toFixed(1)} calls each), sent to answered as the server saw them: p50 ${ms(durations!.p50)}, p90 ${ms(durations!.p90)}, max ${ms(durations!.max)} ms.`,
    `- Calls of ${slowUs / 1000} ms or more: ${int(slow)}, of which ${int(slow - slowNone)} had a statement in flight.`,
    '',
    table(
      ['calls, by the settlement statement in flight', 'calls', 'share', 'p50 ms', 'p90 ms', 'p99 ms'],
      [
        row(
          'all',
          calls.map((call) => call.us),
        ),
        ...TAIL_GROUPS.map(([label, group]) => row(label, byGroup.get(group)!)),
      ],
    ),
    '',
    `Charge check (${charge.ok ? 'passed' : 'FAILED'}):`,
    '',
    ...charge.lines.map((line) => `    ${line}`),
    '',
    `Re-run: ${RERUN}`,
  ];
  console.log(`\n${lines.join('\n')}`);
  if (!charge.ok || target.tally.notOk + target.tally.failed + target.tally.incomplete > 0) process.exitCode = 1;
}

// ---------------------------------------------------------------------------------------------
// Compare (--compare): two servers, in alternating windows

interface CompareSide {
  name: 'A' | 'B';
  root: string;
  target: Target;
  pid: number | undefined;
  database: string;
  db: pg.Client;
  origin: string;
  setup: Setup;
  before: MoneySnapshot;
}

/** The median and the range of some figures, as "median (min–max)". */
function spread(values: number[], digits: number): string {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = sorted.length % 2 === 1 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
  return `${middle.toFixed(digits)} (${sorted[0]!.toFixed(digits)}–${sorted.at(-1)!.toFixed(digits)})`;
}

/**
 * Both servers in turn, `OPTIONS.rounds` pairs of throughput windows at the largest connection
 * count, A then B in odd pairs and B then A in even ones, so a machine that speeds up or slows down
 * over the run weighs on both alike. Each pair's B/A ratio is read within the pair, where the
 * machine's state is nearly the same: their median and range are the result.
 */
async function runCompare(run: { label: string; phase: (text: string) => void; sides: [CompareSide, CompareSide]; admin: pg.Client }) {
  const { phase, sides, admin } = run;
  const window = (side: CompareSide) => {
    const postgres = backendCpu(admin, side.database);
    return measureThroughput(side.target, MAX_CONNECTIONS, SECONDS, 1, async () => ({ server: processTicks(side.pid), postgres: await postgres() }));
  };
  // Warm: the JIT of each server reaches its steady state before anything is recorded (decision 0045).
  for (const side of sides) await measureThroughput(side.target, MAX_CONNECTIONS, 5, 0);
  phase(`compare: both servers warmed; ${OPTIONS.rounds} pairs of ${SECONDS} s windows at ${MAX_CONNECTIONS} connections on ${run.label}`);
  const results: { pair: number; side: CompareSide; result: ThroughputResult }[] = [];
  for (let pair = 1; pair <= OPTIONS.rounds; pair++) {
    for (const side of pair % 2 === 1 ? sides : [sides[1], sides[0]]) {
      const result = await window(side);
      results.push({ pair, side, result });
      phase(
        `compare pair ${pair} ${side.name}: ${int(result.perSecond)} calls/s, CPU ${result.cpuMsPerCall.server?.toFixed(3) ?? '-'} ms per call, ` +
          `PostgreSQL ${result.cpuMsPerCall.postgres?.toFixed(3) ?? '-'} ms, errors ${result.errors}${stealText(result.steal)}`,
      );
    }
  }

  const checks: [CompareSide, ChargeCheck][] = [];
  for (const side of sides) {
    await settled(side.db);
    checks.push([side, checkCharges(side.before, await snapshot(side.db, side.origin, side.setup), [[run.label, side.target.tally]])]);
  }

  const of = (pair: number, name: 'A' | 'B') => results.find((r) => r.pair === pair && r.side.name === name)!.result;
  const pairs = Array.from({ length: OPTIONS.rounds }, (_, index) => ({ a: of(index + 1, 'A'), b: of(index + 1, 'B') }));
  const total = (r: ThroughputResult) => (r.cpuMsPerCall.server ?? Number.NaN) + (r.cpuMsPerCall.postgres ?? Number.NaN);
  const figures: [string, (r: ThroughputResult) => number, number][] = [
    ['calls/s', (r) => r.perSecond, 0],
    ['Tollbooth CPU ms per call', (r) => r.cpuMsPerCall.server ?? Number.NaN, 3],
    ['PostgreSQL CPU ms per call', (r) => r.cpuMsPerCall.postgres ?? Number.NaN, 3],
    ['both, CPU ms per call', total, 3],
    ['p50 ms', (r) => r.p50 / 1000, 3],
  ];
  const lines = [
    `### Compare: ${run.label}, ${MAX_CONNECTIONS} connections, ${OPTIONS.rounds} pairs of ${SECONDS} s windows`,
    '',
    `- A: ${sides[0].root}`,
    `- B: ${sides[1].root}`,
    '',
    table(
      ['pair', 'side', 'calls/s', 'p50 ms', 'p99 ms', 'calls', 'errors', 'CPU ms per call', 'PostgreSQL CPU ms per call', 'host steal'],
      results.map(({ pair, side, result }) => [
        pair,
        side.name,
        int(result.perSecond),
        ms(result.p50),
        ms(result.p99),
        int(result.calls),
        result.errors,
        result.cpuMsPerCall.server?.toFixed(3) ?? '-',
        result.cpuMsPerCall.postgres?.toFixed(3) ?? '-',
        stealCell(result.steal),
      ]),
      2,
    ),
    '',
    table(
      ['figure', 'A: median (range)', 'B: median (range)', 'B / A within a pair: median (range)'],
      figures.map(([label, read, digits]) => [
        label,
        spread(
          pairs.map((p) => read(p.a)),
          digits,
        ),
        spread(
          pairs.map((p) => read(p.b)),
          digits,
        ),
        spread(
          pairs.map((p) => read(p.b) / read(p.a)),
          3,
        ),
      ]),
    ),
    '',
    ...checks.flatMap(([side, check]) => [
      `Charge check of ${side.name} (${check.ok ? 'passed' : 'FAILED'}):`,
      '',
      ...check.lines.map((line) => `    ${line}`),
      '',
    ]),
    `Re-run: ${RERUN}`,
  ];
  console.log(`\n${lines.join('\n')}`);
  if (checks.some(([, check]) => !check.ok) || results.some(({ result }) => result.errors > 0)) process.exitCode = 1;
}

async function main() {
  const watchdog = setTimeout(() => {
    console.error(`\nThe benchmark ran past ${Math.round(RUN_DEADLINE_MS / 60_000)} minutes; stopping.`);
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
  console.log(`Running: ${RERUN}`);

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
  cleanups.push(() => admin.end());
  /** A fresh database on the server, dropped at the end (unless BENCH_KEEP_DB). */
  const createDatabase = async () => {
    const name = `tb_bench_${randomBytes(5).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${name}`);
    cleanups.push(async () => {
      if (process.env.BENCH_KEEP_DB) console.log(`Kept the database ${name} (BENCH_KEEP_DB): drop it with DROP DATABASE ${name} WITH (FORCE)`);
      else await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    });
    const url = new URL(SERVER_URL);
    url.pathname = `/${name}`;
    return { name, url };
  };
  const { name: database, url: databaseUrl } = await createDatabase();
  const issuer = await startTestIssuer('http://tollbooth.bench/api');
  cleanups.push(() => issuer.close());
  phase(`database ${database} on PostgreSQL ${pgVersion}; OIDC issuer ${issuer.issuer}`);

  // 3. Tollbooth, as production starts it.
  const tollboothPort = await freePort();
  const tollboothOrigin = `http://127.0.0.1:${tollboothPort}`;
  /** A data directory of its own for each server, removed at the end. */
  const newDataDir = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tollbooth-bench-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    return dir;
  };
  const tollboothEnv = {
    PORT: String(tollboothPort),
    HOST: '127.0.0.1',
    PUBLIC_URL: tollboothOrigin,
    DATA_DIR: newDataDir(),
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
  // Node's flags as `npm start` gives them (server/package.json's start script, of the checkout measured).
  // `node <flags> <entry>`, the entry relative to server/.
  const startArguments = (root: string) => {
    const script = (JSON.parse(readFileSync(path.join(root, 'server/package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
    const words = script.trim().split(/\s+/);
    if (words[0] !== 'node' || words.length < 2) throw new Error(`unexpected start script in ${root}/server/package.json: ${script}`);
    return [...words.slice(1, -1), path.join('server', words.at(-1)!)];
  };
  // `npm start` compiles the server first (its prestart): so does the bench, once per checkout measured.
  const built = new Set<string>();
  const startTollbooth = async (extraArgs: string[] = [], extraEnv: Record<string, string> = {}, root = SERVER_ROOT) => {
    if (!built.has(root) && existsSync(path.join(root, 'server/scripts/build.mjs'))) {
      execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: path.join(root, 'server'), stdio: 'inherit' });
      built.add(root);
    }
    const env = { ...tollboothEnv, ...extraEnv, BENCH_SERVER_ROOT: root };
    const child = startChild('tollbooth', [...extraArgs, ...startArguments(root)], { cwd: root, env });
    await Promise.race([waitFor('Tollbooth', async () => ((await fetch(`${env.PUBLIC_URL}/api/health`)).ok ? true : null)), child.exitedEarly]);
    return child;
  };
  /** The memory run reads the server at rest after full garbage collections, through its inspector. */
  const inspectorPort = OPTIONS.memory ? await freePort() : 0;
  /** The tails run notes when each settlement statement went out and came back, through a preload (settlement-tap.ts). */
  const tailsTapDir = OPTIONS.tails ? mkdtempSync(path.join(os.tmpdir(), 'tollbooth-bench-tails-')) : '';
  if (tailsTapDir) cleanups.push(async () => rmSync(tailsTapDir, { recursive: true, force: true }));
  let tollbooth = await startTollbooth(
    OPTIONS.memory ? [`--inspect=127.0.0.1:${inspectorPort}`] : OPTIONS.tails ? ['--import', 'tsx', '--import', path.join(HERE, 'settlement-tap.ts')] : [],
    OPTIONS.tails ? { BENCH_TAP_DIR: tailsTapDir } : {},
  );
  cleanups.push(() => tollbooth.stop());
  phase(`Tollbooth on ${tollboothOrigin} (pid ${tollbooth.process.pid})`);

  // 4. Portkey's gateway from npm (not for the memory run, which measures Tollbooth alone).
  const portkeyPort = await freePort();
  const portkeyOrigin = `http://127.0.0.1:${portkeyPort}`;
  const portkeyEntry = path.join(HERE, 'node_modules/@portkey-ai/gateway/build/start-server.js');
  if (!existsSync(portkeyEntry)) throw new Error(`Portkey is not installed: run npm install --prefix bench/gateway (missing ${portkeyEntry})`);
  const portkeyVersion = (JSON.parse(readFileSync(path.join(HERE, 'node_modules/@portkey-ai/gateway/package.json'), 'utf8')) as { version: string }).version;
  let portkeyPid: number | undefined;
  if (!OPTIONS.memory && !OPTIONS.compare && !OPTIONS.tails) {
    // The preload lets Portkey stream on Node (its header says why); blocking calls pass it untouched.
    const portkey = startChild('portkey', ['--import', path.join(HERE, 'portkey-stream-fix.mjs'), portkeyEntry, `--port=${portkeyPort}`, '--headless'], {
      cwd: HERE,
      quiet: true,
    });
    cleanups.push(() => portkey.stop());
    await Promise.race([waitFor('Portkey', async () => ((await fetch(`${portkeyOrigin}/`)).status > 0 ? true : null)), portkey.exitedEarly]);
    portkeyPid = portkey.process.pid;
    phase(`Portkey gateway ${portkeyVersion} on ${portkeyOrigin} (pid ${portkey.process.pid})`);
  }

  // 5. Owner, live public paid app, consumer with an API key.
  const db = new pg.Client({ connectionString: databaseUrl.toString() });
  await db.connect();
  cleanups.push(async () => db.end());
  const setup = await setUpTollbooth(tollboothOrigin, issuer, db);
  phase(`app ${setup.slug} (${PRICE_CENTS} cent a call, live, public); consumer key ${setup.apiKey.slice(0, 11)}…`);

  // The same chat completion everywhere: what Tollbooth sends upstream for this app (a stream also
  // asks for usage, as Tollbooth's provider does).
  const chat = {
    model: 'gpt-4-turbo',
    messages: [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: 'Hello' },
    ],
    max_tokens: 2048,
    temperature: 0.7,
  };
  const chatBody = JSON.stringify(chat);
  const chatStreamBody = JSON.stringify({ ...chat, stream: true, stream_options: { include_usage: true } });
  // The caller's side of the OpenAI-compatible endpoint: the app is the model, the message its query.
  const openaiCall = { model: setup.slug, messages: [{ role: 'user', content: 'Hello' }] };
  const json = { 'content-type': 'application/json' };
  const upstreamHeaders = { ...json, authorization: 'Bearer x' };
  const portkeyHeaders = { ...upstreamHeaders, 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${upstreamOrigin}/v1` };
  const tollboothHeaders = { ...json, authorization: `Bearer ${setup.apiKey}` };
  const difyPath = `/api/app/${setup.slug}/completion-messages`;
  const difyCall = (mode: 'blocking' | 'streaming') => JSON.stringify({ inputs: { query: 'Hello' }, response_mode: mode, user: 'bench-end-user' });
  const target = (
    name: TargetName,
    side: Target['side'],
    stream: Target['stream'],
    origin: string,
    urlPath: string,
    headers: Record<string, string>,
    body: string,
  ): Target => ({
    name,
    side,
    stream,
    origin,
    path: urlPath,
    headers,
    body,
    tally: newTally(),
  });
  const targets: Record<TargetName, Target> = {
    direct: target('direct', 'direct', null, upstreamOrigin, '/v1/chat/completions', upstreamHeaders, chatBody),
    'direct-stream': target('direct-stream', 'direct', 'openai', upstreamOrigin, '/v1/chat/completions', upstreamHeaders, chatStreamBody),
    portkey: target('portkey', 'portkey', null, portkeyOrigin, '/v1/chat/completions', portkeyHeaders, chatBody),
    'portkey-stream': target('portkey-stream', 'portkey', 'openai', portkeyOrigin, '/v1/chat/completions', portkeyHeaders, chatStreamBody),
    tollbooth: target('tollbooth', 'tollbooth', null, tollboothOrigin, difyPath, tollboothHeaders, difyCall('blocking')),
    'tollbooth-stream': target('tollbooth-stream', 'tollbooth', 'dify', tollboothOrigin, difyPath, tollboothHeaders, difyCall('streaming')),
    'tollbooth-openai': target('tollbooth-openai', 'tollbooth', null, tollboothOrigin, '/v1/chat/completions', tollboothHeaders, JSON.stringify(openaiCall)),
    'tollbooth-openai-stream': target(
      'tollbooth-openai-stream',
      'tollbooth',
      'openai',
      tollboothOrigin,
      '/v1/chat/completions',
      tollboothHeaders,
      JSON.stringify({ ...openaiCall, stream: true, stream_options: { include_usage: true } }),
    ),
  };
  const paths = PATHS.filter((p) => OPTIONS.memory || OPTIONS.only === null || p.parts.includes(OPTIONS.only));
  const tollboothTargets = PATHS.map((p) => targets[p.tollbooth]);
  const tallyByPath = (): [string, Tally][] => PATHS.map((p) => [p.label, { ...targets[p.tollbooth].tally }]);
  const tollboothTally = () => addTallies(tollboothTargets.map((t) => t.tally));

  // Each target answers what it should before anything is measured (these calls are charged before the first snapshot).
  const used = new Set(paths.flatMap((p) => (OPTIONS.memory ? [p.tollbooth] : OPTIONS.compare || OPTIONS.tails ? [] : [p.direct, p.tollbooth, p.portkey])));
  if (OPTIONS.compare || OPTIONS.tails) used.add(paths[0]!.tollbooth);
  for (const name of used) {
    const problem = await answerProblem(targets[name]);
    if (problem) {
      const log = targets[name].side === 'tollbooth' ? `\nLast lines Tollbooth logged:\n${tollbooth.output().slice(-3000)}` : '';
      throw new Error(`${name} does not answer as expected: ${problem}${log}`);
    }
  }
  const moneyBefore = await snapshot(db, tollboothOrigin, setup);
  const upstreamCalls = async () => ((await (await fetch(`${upstreamOrigin}/calls`)).json()) as { calls: number }).calls;
  const upstreamCallsBefore = await upstreamCalls();
  phase(`${[...used].join(', ')} answer the same completion; measuring`);

  if (OPTIONS.tails) {
    await runTails({
      label: paths[0]!.label,
      target: targets[paths[0]!.tollbooth],
      tollbooth,
      tapDir: tailsTapDir,
      phase,
      db,
      tollboothOrigin,
      setup,
      moneyBefore,
    });
    return;
  }

  if (OPTIONS.memory) {
    await runMemory({ tollbooth, tollboothTargets, phase, db, tollboothOrigin, setup, moneyBefore, tallyByPath, pgVersion, loadAtStart, inspectorPort });
    return;
  }

  if (OPTIONS.compare) {
    // B: the other checkout's server, on a database, a port and a data directory of its own.
    const compareRoot = OPTIONS.compare;
    const second = await createDatabase();
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const env = { PORT: String(port), PUBLIC_URL: origin, DATA_DIR: newDataDir(), DATABASE_URL: second.url.toString() };
    const other = await startTollbooth([], env, compareRoot);
    cleanups.push(() => other.stop());
    const otherDb = new pg.Client({ connectionString: second.url.toString() });
    await otherDb.connect();
    cleanups.push(async () => otherDb.end());
    const otherSetup = await setUpTollbooth(origin, issuer, otherDb);
    const a = targets[paths[0]!.tollbooth];
    const b: Target = {
      ...a,
      origin,
      path: a.path.replace(setup.slug, otherSetup.slug),
      headers: { ...a.headers, authorization: `Bearer ${otherSetup.apiKey}` },
      tally: newTally(),
    };
    if (a.name === 'tollbooth-openai' || a.name === 'tollbooth-openai-stream') b.body = a.body.replace(setup.slug, otherSetup.slug);
    const problem = await answerProblem(b);
    if (problem) throw new Error(`B (${compareRoot}) does not answer as expected: ${problem}\nLast lines it logged:\n${other.output().slice(-3000)}`);
    phase(`B: Tollbooth of ${compareRoot} on ${origin} (pid ${other.process.pid}), database ${second.name}`);
    await runCompare({
      label: paths[0]!.label,
      phase,
      sides: [
        { name: 'A', root: SERVER_ROOT, target: a, pid: tollbooth.process.pid, database, db, origin: tollboothOrigin, setup, before: moneyBefore },
        {
          name: 'B',
          root: compareRoot,
          target: b,
          pid: other.process.pid,
          database: second.name,
          db: otherDb,
          origin,
          setup: otherSetup,
          before: await snapshot(otherDb, origin, otherSetup),
        },
      ],
      admin,
    });
    return;
  }

  // 6. One call at a time: each path's Tollbooth target with the direct call and Portkey it is
  // compared with (a reference already measured for an earlier path is not measured again).
  const latency = new Map<TargetName, LatencyResult>();
  for (const spec of paths) {
    const names = [spec.direct, spec.tollbooth, spec.portkey].filter((name) => !latency.has(name));
    const results = await measureLatencies(
      names.map((name) => targets[name]),
      N,
      WARMUP,
    );
    for (const result of results) {
      latency.set(result.target, result);
      const what = targets[result.target].stream ? 'to the first answer byte ' : '';
      phase(
        `latency ${result.target}: p50 ${ms(result.first.p50)} ms, p99 ${ms(result.first.p99)} ms ${what}(n ${N}, errors ${result.errors}${stealText(result.steal)})`,
      );
    }
  }

  // 7. Throughput: blocking paths at every connection count, streaming paths at the largest.
  const throughput: ThroughputResult[] = [];
  const at = (name: TargetName, connections: number) => throughput.find((r) => r.target === name && r.connections === connections);
  const cpuOf = (target: Target): CpuSnapshot => {
    const side = target.side;
    const serverPid = side === 'tollbooth' ? tollbooth.process.pid : side === 'portkey' ? portkeyPid : upstream.process.pid;
    const postgres = side === 'tollbooth' ? backendCpu(admin, database) : async () => null;
    return async () => ({ server: processTicks(serverPid), postgres: await postgres() });
  };
  for (const spec of paths) {
    const connectionCounts = targets[spec.tollbooth].stream ? [MAX_CONNECTIONS] : CONNECTIONS;
    for (const connections of connectionCounts) {
      const names = [spec.direct, spec.tollbooth, spec.portkey].filter((name) => !at(name, connections));
      const results = await measureThroughputs(
        names.map((name) => targets[name]),
        connections,
        SECONDS,
        cpuOf,
      );
      for (const result of results) {
        throughput.push(result);
        const cpuText = [
          result.cpuMsPerCall.server === null ? null : `CPU ${result.cpuMsPerCall.server.toFixed(3)} ms per call`,
          result.cpuMsPerCall.postgres === null ? null : `PostgreSQL ${result.cpuMsPerCall.postgres.toFixed(3)} ms`,
        ].filter(Boolean);
        phase(
          `throughput ${result.target} ×${connections}: ${int(result.perSecond)} calls/s, p50 ${ms(result.p50)} ms, p99 ${ms(result.p99)} ms, errors ${result.errors}${cpuText.length > 0 ? `, ${cpuText.join(', ')}` : ''}${stealText(result.steal)}`,
        );
      }
    }
  }

  // 8. Exact charging, over every path measured.
  await settled(db);
  const moneyAfter = await snapshot(db, tollboothOrigin, setup);
  const charge = checkCharges(moneyBefore, moneyAfter, tallyByPath());
  const upstreamCallCount = (await upstreamCalls()) - upstreamCallsBefore;
  phase(
    `charge check ${charge.ok ? 'passed' : 'FAILED'} (${tollboothTally().ok} paid calls; the upstream saw ${int(upstreamCallCount)} calls from all targets)`,
  );

  // 9. Where Tollbooth's time goes: a second Tollbooth process with the statement/CPU tap.
  const windows: ProfileWindow[] = [];
  let profileCharge: ChargeCheck | null = null;
  // The first path this run measures (Dify blocking unless --only says otherwise).
  const profiledPath = paths[0]!;
  const profiled = targets[profiledPath.tollbooth];
  if (PROFILE) {
    await tollbooth.stop();
    const tapDir = mkdtempSync(path.join(os.tmpdir(), 'tollbooth-bench-tap-'));
    cleanups.push(async () => rmSync(tapDir, { recursive: true, force: true }));
    tollbooth = await startTollbooth(['--import', 'tsx', '--import', path.join(HERE, 'profile-tap.ts')], { BENCH_TAP_DIR: tapDir });
    phase(`profiling: Tollbooth restarted with the statement/CPU tap (pid ${tollbooth.process.pid})`);
    const profileBefore = await snapshot(db, tollboothOrigin, setup);
    const tallyAtStart = tallyByPath();
    const tapWindow = async (label: string, work: () => Promise<number>) => {
      for (const file of ['tap.started', 'tap.done']) rmSync(path.join(tapDir, file), { force: true });
      await sleep(1100); // let pg_stat counters of earlier work flush
      const pgBefore = await pgCounters(admin, database);
      tollbooth.process.kill('SIGUSR2');
      await waitFor('the tap to start', async () => (existsSync(path.join(tapDir, 'tap.started')) ? true : null), 10_000);
      const okBefore = tollboothTally().ok;
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
      const calls = tollboothTally().ok - okBefore;
      const tap = JSON.parse(readFileSync(path.join(tapDir, 'tap.json'), 'utf8')) as Tap;
      const cpu = analyseCpu(JSON.parse(readFileSync(path.join(tapDir, 'server.cpuprofile'), 'utf8')) as CpuProfile);
      const keep = process.env.BENCH_KEEP_PROFILES;
      if (keep) {
        mkdirSync(keep, { recursive: true });
        const kept = path.join(keep, `${label.replace(/[^A-Za-z0-9]+/g, '-').toLowerCase()}.cpuprofile`);
        copyFileSync(path.join(tapDir, 'server.cpuprofile'), kept);
        phase(`kept the CPU profile as ${kept}`);
      }
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
      const pool = newPool(profiled.origin, 1);
      for (let i = 0; i < 300; i++) await callOnce(pool, profiled, process.hrtime.bigint());
      await tapWindow(`${profiledPath.label}, one call at a time`, async () => {
        for (let i = 0; i < sequentialCalls; i++) await callOnce(pool, profiled, process.hrtime.bigint());
        return sequentialCalls;
      });
      await pool.close();
    }
    const loadConnections = MAX_CONNECTIONS;
    await tapWindow(`${profiledPath.label}, ${loadConnections} connections`, async () => {
      const result = await measureThroughput(profiled, loadConnections, QUICK ? 3 : 5, 0);
      return result.calls;
    });
    await settled(db);
    const profileAfter = await snapshot(db, tollboothOrigin, setup);
    profileCharge = checkCharges(
      profileBefore,
      profileAfter,
      tallyByPath().map(([label, tally], i) => [label, subtractTally(tally, tallyAtStart[i]![1])]),
    );
    phase(`profile phase charge check ${profileCharge.ok ? 'passed' : 'FAILED'}`);
  }

  // 10. Report.
  const machine = machineInfo(pgVersion);
  const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');
  const result = (name: TargetName) => latency.get(name)!;
  const targetRows: (string | number)[][] = [];
  for (const spec of paths) {
    const streaming = targets[spec.tollbooth].stream !== null;
    const what = streaming ? 'added time to first answer byte' : 'added latency';
    const direct = result(spec.direct).first;
    const tb = result(spec.tollbooth).first;
    const pk = result(spec.portkey).first;
    const addedP50 = tb.p50 - direct.p50;
    const portkeyP50 = pk.p50 - direct.p50;
    const addedP99 = tb.p99 - direct.p99;
    const tbRate = at(spec.tollbooth, MAX_CONNECTIONS)?.perSecond ?? 0;
    const pkRate = at(spec.portkey, MAX_CONNECTIONS)?.perSecond;
    targetRows.push(
      [spec.label, `${what} p50`, '≤ 0.4 ms', `${signedMs(addedP50)} ms`, verdict(addedP50 <= 400)],
      [spec.label, "… and below Portkey's", `< ${signedMs(portkeyP50)} ms`, `${signedMs(addedP50)} ms`, verdict(addedP50 < portkeyP50)],
      [spec.label, `${what} p99`, '≤ 2 ms', `${signedMs(addedP99)} ms`, verdict(addedP99 <= 2000)],
      [spec.label, `paid ${streaming ? 'streams' : 'calls'}/s at ${MAX_CONNECTIONS} connections`, '≥ 6,000', int(tbRate), verdict(tbRate >= 6000)],
      [
        spec.label,
        "… and ≥ 3× Portkey's",
        pkRate === undefined ? '-' : `≥ ${int(3 * pkRate)}`,
        int(tbRate),
        verdict(pkRate !== undefined && tbRate >= 3 * pkRate),
      ],
    );
  }
  targetRows.push(['Memory', 'RSS after 1,000,000 paid calls vs after 10,000', 'within 20 %', 'not in this run: `--memory`', '-']);
  const targetsTable = table(['path (issue 15)', 'target', 'goal', 'measured', 'verdict'], targetRows, 2);
  const referenceOf = (name: TargetName) => {
    const spec = PATHS.find((p) => p.tollbooth === name || p.portkey === name);
    return spec ? result(spec.direct) : null;
  };
  const latencyTable = table(
    ['one call at a time', 'timed to', 'p50 ms', 'p90 ms', 'p99 ms', 'mean ms', 'max ms', 'added p50', 'added p99', 'whole call p50', 'errors', 'host steal'],
    [...latency.values()].map((r) => {
      const reference = referenceOf(r.target);
      return [
        r.target,
        targets[r.target].stream ? 'first answer byte' : 'last byte',
        ms(r.first.p50),
        ms(r.first.p90),
        ms(r.first.p99),
        ms(r.first.mean),
        ms(r.first.max),
        reference ? signedMs(r.first.p50 - reference.first.p50) : '-',
        reference ? signedMs(r.first.p99 - reference.first.p99) : '-',
        ms(r.total.p50),
        r.errors,
        stealCell(r.steal),
      ];
    }),
    2,
  );
  const throughputTable = table(
    [
      'throughput',
      'connections',
      'calls/s',
      'p50 ms',
      'p99 ms',
      'first byte p50',
      'calls',
      'errors',
      'CPU ms per call',
      'PostgreSQL CPU ms per call',
      'host steal',
    ],
    throughput.map((r) => [
      r.target,
      r.connections,
      int(r.perSecond),
      ms(r.p50),
      ms(r.p99),
      targets[r.target].stream ? ms(r.firstP50) : '-',
      int(r.calls),
      r.errors,
      r.cpuMsPerCall.server === null ? '-' : r.cpuMsPerCall.server.toFixed(3),
      r.cpuMsPerCall.postgres === null ? '-' : r.cpuMsPerCall.postgres.toFixed(3),
      stealCell(r.steal),
    ]),
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

  const machineLines = describeMachine(machine, loadAtStart, portkeyVersion);
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
    `- Re-run: \`${RERUN}\` from the repository root (after \`npm install --prefix bench/gateway\`); one call at a time n = ${N} after ${WARMUP} warm-up calls, ` +
      `throughput ${SECONDS} s per row after 1 s of warm-up. A stream is timed to its first answer byte (the first text chunk) and to its end; ` +
      `"added" is over the direct call of the same kind (blocking or streaming). ${MEASURED_IN_TURN}`,
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
  console.log(`\nRe-run: ${RERUN}`);

  if (WRITE_README) {
    writeReadme(
      BLOCK,
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

function describeMachine(machine: ReturnType<typeof machineInfo>, loadAtStart: string, portkeyVersion: string | null): string[] {
  return [
    `- Date: ${machine.date}`,
    `- Machine: ${machine.cpu}; ${machine.memory}; ${machine.os}`,
    `- PostgreSQL ${machine.postgres} on 127.0.0.1 (default settings: synchronous_commit on); Node ${machine.node}${portkeyVersion ? `; Portkey gateway ${portkeyVersion}` : ''}`,
    `- Tollbooth measured: ${machine.tollbooth}`,
    `- Load generator, fake upstream, Tollbooth${portkeyVersion ? ', Portkey' : ''} and PostgreSQL all share these cores; the load generator is one Node process using undici keep-alive pools.`,
    `- Load average (1, 5, 15 min) before the run: ${loadAtStart}; at its end, this run's own processes included: ${machine.load}. Other work on the machine distorts the figures: run it on a quiet machine.`,
  ];
}

const README = path.join(ROOT, 'bench/README.md');
interface Block {
  begin: string;
  end: string;
}
/** The main run's block (latency, throughput, targets, charge check, profile). */
const BLOCK: Block = { begin: '<!-- gateway-bench:begin (written by bench/gateway/run.ts) -->', end: '<!-- gateway-bench:end -->' };
/** The --memory run's block, kept right after the main one. */
const MEMORY_BLOCK: Block = {
  begin: '<!-- gateway-bench-memory:begin (written by bench/gateway/run.ts --memory) -->',
  end: '<!-- gateway-bench-memory:end -->',
};

/** Replaces a generated block inside "## Gateway", creating it (after the main block), the section or the file if needed. */
function writeReadme(block: Block, text: string) {
  const generated = `${block.begin}\n${text.trimEnd()}\n${block.end}`;
  const current = existsSync(README) ? readFileSync(README, 'utf8') : '# Benchmarks\n\nEach benchmark prints its figures and the command that re-runs it.\n';
  let next: string;
  if (current.includes(block.begin) && current.includes(block.end)) {
    next = current.slice(0, current.indexOf(block.begin)) + generated + current.slice(current.indexOf(block.end) + block.end.length);
  } else if (block !== BLOCK && current.includes(BLOCK.end)) {
    const after = current.indexOf(BLOCK.end) + BLOCK.end.length;
    next = `${current.slice(0, after)}\n\n${generated}${current.slice(after)}`;
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

// Stopped from outside (Ctrl-C, kill): the servers and the fake upstream it started go with it.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void shutdown().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
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
