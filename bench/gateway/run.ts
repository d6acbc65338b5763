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
//   node --import tsx bench/gateway/run.ts --observability [--rounds N] [--only <as above>]
//   node --import tsx bench/gateway/run.ts --price-forms [--rounds N] [--only <as above>]
//   env: DATABASE_URL (server URL, default postgres://postgres@127.0.0.1:5432/postgres),
//        BENCH_N (default 5000, 1000 with --quick), BENCH_WARMUP (5000), BENCH_SECONDS (10), BENCH_CONNECTIONS (10,50),
//        BENCH_LATENCY_BLOCK (0: one call at a time, each target after the other; N: the targets take turns in blocks of N calls),
//        BENCH_THROUGHPUT_ROUNDS (1: throughput, each target after the other; N: the targets take turns, N windows each),
//        BENCH_MEMORY_CONNECTIONS (50),
//        BENCH_SERVER_ROOT (another checkout whose server/ to measure, default this one),
//        BENCH_KEEP_DB=1 (keep the database afterwards, to inspect it),
//        BENCH_KEEP_PROFILES=<dir> (copy each profile window's V8 .cpuprofile there, to open in Chrome's DevTools)
//        BENCH_SIDE_PROFILES=<dir> (--compare, --observability: run the other servers under --cpu-prof, writing <dir>/<side>/*.cpuprofile at exit)
//
// The run's parts, one module each beside this one: options.ts (flags and BENCH_* settings),
// processes.ts (children, ports, cleanup), setup.ts (servers, database, app, targets), targets.ts
// (one call and its tally), measure.ts (latency, throughput, CPU and steal), money.ts (the charge
// check), profile.ts (the profile phase), memory.ts (--memory), compare.ts (--compare), tails.ts
// (--tails), report.ts (the report and the README blocks), format.ts (figures and tables).
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { runCompare } from './compare.ts';
import { int, ms, stealText } from './format.ts';
import { backendCpu, type CpuSnapshot, type LatencyResult, measureLatencies, measureThroughputs, processTicks, type ThroughputResult } from './measure.ts';
import { runMemory } from './memory.ts';
import { type ChargeCheck, checkCharges, settled, snapshot } from './money.ts';
import { runObservability } from './observability.ts';
import { CONNECTIONS, MAX_CONNECTIONS, N, OPTIONS, PROFILE, RERUN, RUN_DEADLINE_MS, SECONDS, WARMUP } from './options.ts';
import { runPriceForms } from './price-forms.ts';
import { shutdown } from './processes.ts';
import { profilePhase } from './profile.ts';
import { reportRun } from './report.ts';
import { type Bench, setUp } from './setup.ts';
import { runTails } from './tails.ts';
import type { Target, TargetName } from './targets.ts';

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

  // 1-5. The fake upstream, a fresh database, Tollbooth, Portkey, the app and its targets, checked.
  const bench = await setUp(phase, loadAtStart);

  // The runs of their own: each after the set-up, instead of the phases below.
  if (OPTIONS.tails) return await runTails(bench);
  if (OPTIONS.memory) return await runMemory(bench);
  if (OPTIONS.compare) return await runCompare(bench);
  if (OPTIONS.observability) return await runObservability(bench);
  if (OPTIONS.priceForms) return await runPriceForms(bench);

  const latency = await latencyPhase(bench);
  const throughput = await throughputPhase(bench);
  const charge = await chargePhase(bench);
  const profile = PROFILE ? await profilePhase(bench) : { windows: [], charge: null };
  reportRun(bench, latency, throughput, charge, profile);
}

/**
 * 6. One call at a time: each path's Tollbooth target with the direct call and Portkey it is
 * compared with (a reference already measured for an earlier path is not measured again).
 */
async function latencyPhase({ paths, targets, phase }: Bench): Promise<Map<TargetName, LatencyResult>> {
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
  return latency;
}

/** 7. Throughput: blocking paths at every connection count, streaming paths at the largest. */
async function throughputPhase(bench: Bench): Promise<ThroughputResult[]> {
  const { paths, targets, phase, admin, database } = bench;
  const throughput: ThroughputResult[] = [];
  const at = (name: TargetName, connections: number) => throughput.find((r) => r.target === name && r.connections === connections);
  const cpuOf = (target: Target): CpuSnapshot => {
    const side = target.side;
    const serverPid = side === 'tollbooth' ? bench.tollbooth.process.pid : side === 'portkey' ? bench.portkeyPid : bench.upstream.process.pid;
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
  return throughput;
}

/** 8. Exact charging, over every path measured. */
async function chargePhase({
  db,
  tollboothOrigin,
  setup,
  moneyBefore,
  tallyByPath,
  tollboothTally,
  upstreamCalls,
  upstreamCallsBefore,
  phase,
}: Bench): Promise<ChargeCheck> {
  await settled(db);
  const moneyAfter = await snapshot(db, tollboothOrigin, setup);
  const charge = checkCharges(moneyBefore, moneyAfter, tallyByPath());
  const upstreamCallCount = (await upstreamCalls()) - upstreamCallsBefore;
  phase(
    `charge check ${charge.ok ? 'passed' : 'FAILED'} (${tollboothTally().ok} paid calls; the upstream saw ${int(upstreamCallCount)} calls from all targets)`,
  );
  return charge;
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
