// The compare run (--compare <checkout>): this checkout's server (A) against another's (B), each on a
// database of its own, in alternating throughput windows, with the B/A ratio of each pair.
import type pg from 'pg';
import { int, ms, stealCell, stealText, table } from './format.ts';
import { backendCpu, measureThroughput, processTicks, type ThroughputResult } from './measure.ts';
import { type ChargeCheck, chargeCheckReport, checkCharges, settled, snapshot } from './money.ts';
import { METRICS_TOKEN, startOtlpSink } from './observability.ts';
import { MAX_CONNECTIONS, OPTIONS, RERUN, SECONDS, SERVER_ROOT } from './options.ts';
import type { Bench } from './setup.ts';
import { type RunSide, startOtherSide } from './side.ts';

/** The compare run, after the set-up: B's server started beside A's, then the pairs of windows. */
export async function runCompare(bench: Bench) {
  const { phase, paths, targets, setup, tollbooth, database, db, tollboothOrigin, moneyBefore, admin } = bench;
  const compareRoot = OPTIONS.compare!;
  // --traced: both sides with metrics on and every call traced to one OTLP sink, so A is started
  // again beside B with those settings (the bench's own server has neither).
  const sink = OPTIONS.traced ? await startOtlpSink() : null;
  const env: Record<string, string> = sink ? { METRICS_TOKEN, OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint, OTEL_TRACES_SAMPLER: 'always_on' } : {};
  const sideOf = async (name: 'A' | 'B', root: string, other: Awaited<ReturnType<typeof startOtherSide>>): Promise<CompareSide> => ({
    name,
    root,
    target: other.target,
    pid: other.server.process.pid,
    database: other.database.name,
    db: other.db,
    origin: other.origin,
    setup: other.setup,
    before: await snapshot(other.db, other.origin, other.setup),
  });
  let sideA: CompareSide = {
    name: 'A',
    root: SERVER_ROOT,
    target: targets[paths[0]!.tollbooth],
    pid: tollbooth.process.pid,
    database,
    db,
    origin: tollboothOrigin,
    setup,
    before: moneyBefore,
  };
  if (sink) {
    const tracedA = await startOtherSide(bench, { who: 'A', env });
    phase(`A: Tollbooth of ${SERVER_ROOT}, traced, on ${tracedA.origin} (pid ${tracedA.server.process.pid}), database ${tracedA.database.name}`);
    sideA = await sideOf('A', SERVER_ROOT, tracedA);
  }
  // B: the other checkout's server, on a database, a port and a data directory of its own.
  const other = await startOtherSide(bench, { who: 'B', root: compareRoot, env });
  phase(`B: Tollbooth of ${compareRoot}${sink ? ', traced,' : ''} on ${other.origin} (pid ${other.server.process.pid}), database ${other.database.name}`);
  await comparePairs({ label: paths[0]!.label, phase, sides: [sideA, await sideOf('B', compareRoot, other)], admin });
  if (sink) phase(`the OTLP sink received ${sink.figures().exports} exports (${int(sink.figures().bytes)} bytes)`);
}

interface CompareSide extends RunSide<'A' | 'B'> {
  root: string;
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
async function comparePairs(run: { label: string; phase: (text: string) => void; sides: [CompareSide, CompareSide]; admin: pg.Client }) {
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
    ...checks.flatMap(([side, check]) => chargeCheckReport(side.name, check)),
    `Re-run: ${RERUN}`,
  ];
  console.log(`\n${lines.join('\n')}`);
  if (checks.some(([, check]) => !check.ok) || results.some(({ result }) => result.errors > 0)) process.exitCode = 1;
}
