// What a run prints and writes: the machine it ran on, the main run's report (targets, latency,
// throughput, charge checks, profile), and the generated blocks of bench/README.md ("## Gateway").
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { int, ms, signedMs, stealCell, table } from './format.ts';
import type { LatencyResult, ThroughputResult } from './measure.ts';
import type { ChargeCheck } from './money.ts';
import { MAX_CONNECTIONS, MEASURED_IN_TURN, N, RERUN, ROOT, SECONDS, SERVER_ROOT, WARMUP, WRITE_README } from './options.ts';
import { type ProfileWindow, profileReport } from './profile.ts';
import type { Bench } from './setup.ts';
import { firstErrors, PATHS, type TargetName } from './targets.ts';

/** 10. The main run's report: the targets, one call at a time, throughput, the charge checks and the profile; its README block on a full run. */
export function reportRun(
  bench: Bench,
  latency: Map<TargetName, LatencyResult>,
  throughput: ThroughputResult[],
  charge: ChargeCheck,
  profile: { windows: ProfileWindow[]; charge: ChargeCheck | null },
) {
  const { pgVersion, loadAtStart, portkeyVersion } = bench;
  const machine = machineInfo(pgVersion);
  const { targetsTable, latencyTable, throughputTable } = measuredTables(bench, latency, throughput);
  const { text: profileText, brief: profileBrief } = profileReport(profile.windows);
  const profileCharge = profile.charge;
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
    console.log(`\nLast lines Tollbooth logged:\n${bench.tollbooth.output().slice(-3000)}`);
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

/** The targets (issue 15's, per path), one call at a time and throughput, as Markdown tables. */
function measuredTables(bench: Bench, latency: Map<TargetName, LatencyResult>, throughput: ThroughputResult[]) {
  const { paths, targets } = bench;
  const at = (name: TargetName, connections: number) => throughput.find((r) => r.target === name && r.connections === connections);
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
  return { targetsTable, latencyTable, throughputTable };
}

export function machineInfo(pgVersion: string) {
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

export function describeMachine(machine: ReturnType<typeof machineInfo>, loadAtStart: string, portkeyVersion: string | null): string[] {
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
export interface Block {
  begin: string;
  end: string;
}
/** The main run's block (latency, throughput, targets, charge check, profile). */
const BLOCK: Block = { begin: '<!-- gateway-bench:begin (written by bench/gateway/run.ts) -->', end: '<!-- gateway-bench:end -->' };
/** The --memory run's block, kept right after the main one. */
export const MEMORY_BLOCK: Block = {
  begin: '<!-- gateway-bench-memory:begin (written by bench/gateway/run.ts --memory) -->',
  end: '<!-- gateway-bench-memory:end -->',
};

/** Replaces a generated block inside "## Gateway", creating it (after the main block), the section or the file if needed. */
export function writeReadme(block: Block, text: string) {
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
