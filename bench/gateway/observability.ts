// The observability cost run (--observability; issue 58's "Cost"): three servers of this checkout in
// the same run, each on a database of its own: A with metrics and tracing off (the bench's own
// server), B with metrics on (METRICS_TOKEN; the run scrapes its /metrics every second, as a busy
// Prometheus would), C with metrics on and tracing at 100 % sampling (OTEL_TRACES_SAMPLER=always_on)
// to an OTLP/HTTP sink on loopback that reads and drops every export. Each side's lone-call latency
// (p50, p99; the first path selected), then `--rounds N` rounds of throughput windows at the largest
// connection count, the sides' order turning each round, with B/A and C/A read within each round.
// The goals: B costs at most 2 % of calls/s and 0.05 ms of p50; C at most 10 % of calls/s.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { int, ms, roundsTable, table } from './format.ts';
import { backendCpu, measureLatencies, measureThroughput, processTicks, type ThroughputResult } from './measure.ts';
import { chargeCheckReport, checkCharges, settled, snapshot } from './money.ts';
import { MAX_CONNECTIONS, N, OPTIONS, RERUN, SECONDS, WARMUP } from './options.ts';
import { cleanups } from './processes.ts';
import type { Bench } from './setup.ts';
import { type RunSide, startOtherSide } from './side.ts';

export const METRICS_TOKEN = 'bench-metrics-token-0123456789';

interface Side extends RunSide<'A' | 'B' | 'C'> {
  label: string;
}

/** An OTLP/HTTP sink: reads each export, answers 200, counts the bytes. */
export async function startOtlpSink() {
  let exports = 0;
  let bytes = 0;
  const server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    request.on('end', () => {
      exports++;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, figures: () => ({ exports, bytes }) };
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted.length % 2 === 1 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
}
const spread = (values: number[], digits: number) =>
  `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;

export async function runObservability(bench: Bench) {
  const { phase, paths, targets, setup, tollbooth, database, db, tollboothOrigin, moneyBefore, admin } = bench;
  const sink = await startOtlpSink();
  const a = targets[paths[0]!.tollbooth];
  const startSide = async (name: 'B' | 'C', label: string, extraEnv: Record<string, string>): Promise<Side> => {
    const side = await startOtherSide(bench, { who: name, env: extraEnv });
    phase(`${name}: ${label} on ${side.origin} (pid ${side.server.process.pid}), database ${side.database.name}`);
    return {
      name,
      label,
      target: side.target,
      pid: side.server.process.pid,
      database: side.database.name,
      db: side.db,
      origin: side.origin,
      setup: side.setup,
      before: await snapshot(side.db, side.origin, side.setup),
    };
  };
  const sides: Side[] = [
    { name: 'A', label: 'metrics and tracing off', target: a, pid: tollbooth.process.pid, database, db, origin: tollboothOrigin, setup, before: moneyBefore },
    await startSide('B', 'metrics on (METRICS_TOKEN, scraped every second)', { METRICS_TOKEN }),
    await startSide('C', 'metrics on and tracing at 100 % sampling (OTEL_TRACES_SAMPLER=always_on, an OTLP sink on loopback)', {
      METRICS_TOKEN,
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint,
      OTEL_TRACES_SAMPLER: 'always_on',
    }),
  ];
  // Prometheus' part: every metrics side is scraped once a second all through the run.
  let scrapes = 0;
  let scrapeErrors = 0;
  const scraper = setInterval(() => {
    for (const side of sides.slice(1)) {
      fetch(`${side.origin}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
        .then(async (response) => {
          await response.text();
          if (response.ok) scrapes++;
          else scrapeErrors++;
        })
        .catch(() => scrapeErrors++);
    }
  }, 1000);
  cleanups.push(async () => clearInterval(scraper));

  // Lone calls: each side after the other, N calls after WARMUP (the bench's settings).
  phase(`observability: lone calls, ${N} per side after ${WARMUP} warm-up calls, on ${paths[0]!.label}`);
  const latencies = await measureLatencies(
    sides.map((side) => side.target),
    N,
    WARMUP,
  );

  // Throughput: rounds of windows, the order of the sides turning each round.
  const window = (side: Side) => {
    const postgres = backendCpu(admin, side.database);
    return measureThroughput(side.target, MAX_CONNECTIONS, SECONDS, 1, async () => ({ server: processTicks(side.pid), postgres: await postgres() }));
  };
  for (const side of sides) await measureThroughput(side.target, MAX_CONNECTIONS, 5, 0);
  phase(`observability: warmed; ${OPTIONS.rounds} rounds of ${SECONDS} s windows at ${MAX_CONNECTIONS} connections`);
  const results: { round: number; side: Side; result: ThroughputResult }[] = [];
  for (let round = 1; round <= OPTIONS.rounds; round++) {
    const shift = (round - 1) % sides.length;
    for (const side of [...sides.slice(shift), ...sides.slice(0, shift)]) {
      const result = await window(side);
      results.push({ round, side, result });
      phase(
        `round ${round} ${side.name}: ${int(result.perSecond)} calls/s, CPU ${result.cpuMsPerCall.server?.toFixed(3) ?? '-'} ms per call, errors ${result.errors}`,
      );
    }
  }
  clearInterval(scraper);

  const checks = [];
  for (const side of sides) {
    await settled(side.db);
    checks.push({ side, check: checkCharges(side.before, await snapshot(side.db, side.origin, side.setup), [[paths[0]!.label, side.target.tally]]) });
  }
  const of = (round: number, name: Side['name']) => results.find((r) => r.round === round && r.side.name === name)!.result;
  const rounds = Array.from({ length: OPTIONS.rounds }, (_, index) => index + 1);
  const ratio = (name: 'B' | 'C', read: (r: ThroughputResult) => number) => rounds.map((round) => read(of(round, name)) / read(of(round, 'A')));
  const perSecond = (r: ThroughputResult) => r.perSecond;
  const cpu = (r: ThroughputResult) => r.cpuMsPerCall.server ?? Number.NaN;
  const p50Of = (name: Side['name']) => latencies[sides.findIndex((side) => side.name === name)]!.first.p50;
  const p99Of = (name: Side['name']) => latencies[sides.findIndex((side) => side.name === name)]!.first.p99;
  const costOf = (name: 'B' | 'C') => 1 - median(ratio(name, perSecond));
  const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');
  const lines = [
    `### Observability cost: ${paths[0]!.label}, ${new Date().toISOString()}`,
    '',
    ...sides.map((side) => `- ${side.name}: ${side.label}`),
    `- Lone calls: ${N} per side after ${WARMUP} warm-up calls, one side after the other. Throughput: ${OPTIONS.rounds} rounds of ${SECONDS} s at ${MAX_CONNECTIONS} connections, the sides' order turning each round; ratios are read within a round.`,
    `- Scrapes of B's and C's /metrics: ${scrapes} answered, ${scrapeErrors} failed; the OTLP sink received ${sink.figures().exports} exports (${int(sink.figures().bytes)} bytes).`,
    '',
    table(
      ['side', 'p50 ms', 'p99 ms', 'calls/s: median (range)', 'Tollbooth CPU ms per call: median (range)'],
      sides.map((side) => {
        const mine = results.filter((r) => r.side === side).map((r) => r.result);
        return [side.name, ms(p50Of(side.name)), ms(p99Of(side.name)), spread(mine.map(perSecond), 0), spread(mine.map(cpu), 3)];
      }),
    ),
    '',
    roundsTable(results, { cpu: true }),
    '',
    table(
      ['goal (issue 58)', 'limit', 'measured', 'verdict'],
      [
        [
          'metrics on: calls/s lost (1 − median B/A)',
          '≤ 2 %',
          `${(costOf('B') * 100).toFixed(1)} % (B/A ${spread(ratio('B', perSecond), 3)})`,
          verdict(costOf('B') <= 0.02),
        ],
        [
          'metrics on: added p50 (B − A, lone calls)',
          '≤ 0.05 ms',
          `${((p50Of('B') - p50Of('A')) / 1000).toFixed(3)} ms`,
          verdict((p50Of('B') - p50Of('A')) / 1000 <= 0.05),
        ],
        [
          'metrics and tracing at 100 %: calls/s lost (1 − median C/A)',
          '≤ 10 %',
          `${(costOf('C') * 100).toFixed(1)} % (C/A ${spread(ratio('C', perSecond), 3)})`,
          verdict(costOf('C') <= 0.1),
        ],
        ['metrics and tracing: added p50 (C − A, lone calls)', '-', `${((p50Of('C') - p50Of('A')) / 1000).toFixed(3)} ms`, '-'],
        ['metrics on: Tollbooth CPU per call (median B/A)', '-', spread(ratio('B', cpu), 3), '-'],
        ['metrics and tracing: Tollbooth CPU per call (median C/A)', '-', spread(ratio('C', cpu), 3), '-'],
      ],
    ),
    '',
    ...checks.flatMap(({ side, check }) => chargeCheckReport(side.name, check)),
    `Re-run: ${RERUN}`,
  ];
  console.log(`\n${lines.join('\n')}`);
  if (checks.some(({ check }) => !check.ok) || results.some(({ result }) => result.errors > 0)) process.exitCode = 1;
}
