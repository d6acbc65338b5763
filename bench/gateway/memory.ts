// The memory run (--memory): issue 15's "RSS of one server process after 1 million paid calls within
// 20% of its RSS after 10,000", read at rest through the server's inspector (decision 0063).
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { WebSocket } from 'undici';
import { int, mib, table } from './format.ts';
import { percentile } from './measure.ts';
import { checkCharges, settled, snapshot } from './money.ts';
import { MEMORY_BASELINE_CALLS, MEMORY_CONNECTIONS, MEMORY_WINDOW_CALLS, OPTIONS, RERUN, WRITE_README } from './options.ts';
import { describeMachine, MEMORY_BLOCK, machineInfo, writeReadme } from './report.ts';
import type { Bench } from './setup.ts';
import { callOnce, firstErrors, newPool, type Target } from './targets.ts';

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

/** The memory run (--memory), after the set-up: the calls, the readings at rest, the report and its block. */
export async function runMemory(run: Bench) {
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
