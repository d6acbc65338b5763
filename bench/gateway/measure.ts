// How the bench measures: percentiles, one call at a time (measureLatencies), throughput windows
// (measureThroughput, measureThroughputs), and the CPU and host steal read from /proc around them.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import type { Pool } from 'undici';
import { BLOCK_WARMUP, LATENCY_BLOCK, THROUGHPUT_ROUNDS, WINDOW_WARMUP_MS } from './options.ts';
import { callOnce, elapsedUs, newPool, type Target, type TargetName } from './targets.ts';

export function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export interface Stats {
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  max: number;
}

export function stats(samples: Float64Array): Stats {
  const sorted = samples.slice().sort();
  return {
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    mean: samples.reduce((sum, v) => sum + v, 0) / samples.length,
    max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
  };
}

export interface LatencyResult {
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
export async function measureLatencies(list: Target[], n: number, warmup: number): Promise<LatencyResult[]> {
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

export interface ThroughputResult {
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
export type CpuSnapshot = () => Promise<{ server: number | null; postgres: number | null }>;

/** CPU ticks (user + system, every thread) of one process so far, or null off Linux or once it is gone. */
export function processTicks(pid: number | undefined): number | null {
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
export async function measureThroughput(target: Target, connections: number, seconds: number, warmupSeconds = 1, cpu?: CpuSnapshot): Promise<ThroughputResult> {
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
export async function measureThroughputs(
  list: Target[],
  connections: number,
  seconds: number,
  cpuOf: (target: Target) => CpuSnapshot,
): Promise<ThroughputResult[]> {
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

export async function backendTicks(db: pg.Client, database: string): Promise<Map<number, number>> {
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
export function backendCpu(db: pg.Client, database: string): () => Promise<number | null> {
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
export function machineTicks(): { busy: number; steal: number; total: number } | null {
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
export class StealMeter {
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

export const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();
