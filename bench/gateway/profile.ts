// The profile phase: a second Tollbooth process with the statement/CPU tap (profile-tap.ts), two
// windows of paid calls on the first path measured, and what they show: statements, commits and WAL
// per call, CPU by owner, package and function (V8's CPU profile mapped back to the sources).
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { mapCompiledFrames } from '../compiled-frames.ts';
import { int, ms, table } from './format.ts';
import { backendTicks, CLOCK_TICKS, machineTicks, measureThroughput } from './measure.ts';
import { type ChargeCheck, checkCharges, settled, snapshot } from './money.ts';
import { HERE, MAX_CONNECTIONS, QUICK } from './options.ts';
import { cleanups, waitFor } from './processes.ts';
import type { Bench } from './setup.ts';
import { callOnce, newPool, subtractTally } from './targets.ts';

/**
 * 9. Where Tollbooth's time goes: Tollbooth restarted with the statement/CPU tap (bench.tollbooth is
 * then that process), a window of lone calls and one at the largest connection count on the first
 * path this run measures (Dify blocking unless --only says otherwise), and the charge check of both.
 */
export async function profilePhase(bench: Bench): Promise<{ windows: ProfileWindow[]; charge: ChargeCheck }> {
  const { phase, db, setup, tollboothOrigin, tallyByPath } = bench;
  const windows: ProfileWindow[] = [];
  const profiledPath = bench.paths[0]!;
  const profiled = bench.targets[profiledPath.tollbooth];
  await bench.tollbooth.stop();
  const tapDir = mkdtempSync(path.join(os.tmpdir(), 'tollbooth-bench-tap-'));
  cleanups.push(async () => rmSync(tapDir, { recursive: true, force: true }));
  bench.tollbooth = await bench.startTollbooth(['--import', 'tsx', '--import', path.join(HERE, 'profile-tap.ts')], { BENCH_TAP_DIR: tapDir });
  phase(`profiling: Tollbooth restarted with the statement/CPU tap (pid ${bench.tollbooth.process.pid})`);
  const profileBefore = await snapshot(db, tollboothOrigin, setup);
  const tallyAtStart = tallyByPath();
  const sequentialCalls = QUICK ? 500 : 2000;
  {
    const pool = newPool(profiled.origin, 1);
    for (let i = 0; i < 300; i++) await callOnce(pool, profiled, process.hrtime.bigint());
    windows.push(
      await tapWindow(bench, tapDir, `${profiledPath.label}, one call at a time`, async () => {
        for (let i = 0; i < sequentialCalls; i++) await callOnce(pool, profiled, process.hrtime.bigint());
        return sequentialCalls;
      }),
    );
    await pool.close();
  }
  const loadConnections = MAX_CONNECTIONS;
  windows.push(
    await tapWindow(bench, tapDir, `${profiledPath.label}, ${loadConnections} connections`, async () => {
      const result = await measureThroughput(profiled, loadConnections, QUICK ? 3 : 5, 0);
      return result.calls;
    }),
  );
  await settled(db);
  const profileAfter = await snapshot(db, tollboothOrigin, setup);
  const charge = checkCharges(
    profileBefore,
    profileAfter,
    tallyByPath().map(([label, tally], i) => [label, subtractTally(tally, tallyAtStart[i]![1])]),
  );
  phase(`profile phase charge check ${charge.ok ? 'passed' : 'FAILED'}`);
  return { windows, charge };
}

/**
 * One profile window: the tap started (SIGUSR2) around `work`, then what it saw (statements, CPU
 * profile) with PostgreSQL's counters, its backends' CPU and the machine's, over the same span.
 */
async function tapWindow(bench: Bench, tapDir: string, label: string, work: () => Promise<number>): Promise<ProfileWindow> {
  const { phase, admin, database, tollboothTally } = bench;
  for (const file of ['tap.started', 'tap.done']) rmSync(path.join(tapDir, file), { force: true });
  await sleep(1100); // let pg_stat counters of earlier work flush
  const pgBefore = await pgCounters(admin, database);
  bench.tollbooth.process.kill('SIGUSR2');
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
  bench.tollbooth.process.kill('SIGUSR2');
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
  const window: ProfileWindow = {
    label,
    calls,
    callsPerSecond: calls / elapsed,
    tap,
    pg: pgDelta,
    cpu,
    postgresCpuMs,
    loadGeneratorCpuMs: (selfCpu.user + selfCpu.system) / 1000,
    machineBusy,
  };
  phase(`profile window "${label}": ${calls} paid calls`);
  return window;
}

/** The profile windows as Markdown: `text` for the console (with CPU self time by package and function), `brief` for bench/README.md. */
export function profileReport(windows: ProfileWindow[]): { text: string[]; brief: string[] } {
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
  return { text: profileText, brief: profileBrief };
}

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

export interface ProfileWindow {
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
