// The tails run (--tails): where a lone call's slow answers fall against the settlement statements
// that were in flight, as a preload in the server (settlement-tap.ts) saw them go out and come back.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { int, ms, stealText, table } from './format.ts';
import { StealMeter, stats } from './measure.ts';
import { checkCharges, settled, snapshot } from './money.ts';
import { RERUN, TAIL_CALLS, WARMUP } from './options.ts';
import { waitFor } from './processes.ts';
import type { Bench } from './setup.ts';
import { callOnce, newPool } from './targets.ts';

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

/** The tails run (--tails), after the set-up: lone calls on the first path selected, grouped against the statements. */
export async function runTails(run: Bench) {
  const { label } = run.paths[0]!;
  const target = run.targets[run.paths[0]!.tollbooth];
  const pool = newPool(target.origin, 1);
  const calls: TailCall[] = [];
  const steal = new StealMeter();
  try {
    for (let i = 0; i < WARMUP; i++) await callOnce(pool, target, process.hrtime.bigint());
    run.phase(`tails: ${int(TAIL_CALLS)} ${label} calls, one at a time`);
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
  const spansFile = path.join(run.tailsTapDir, 'settlements.json');
  await waitFor('the settlement tap', async () => (existsSync(path.join(run.tailsTapDir, 'settlements.done')) ? true : null), 10_000);
  const first = calls[0]?.start ?? 0n;
  const spans = (JSON.parse(readFileSync(spansFile, 'utf8')) as [string, string][])
    .map(([sent, answered]): [bigint, bigint] => [BigInt(sent), BigInt(answered)])
    .filter(([, answered]) => answered >= first)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  await settled(run.db);
  const charge = checkCharges(run.moneyBefore, await snapshot(run.db, run.tollboothOrigin, run.setup), [[label, target.tally]]);

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
    `### Tails: ${label}, one call at a time, against the settlement statements`,
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
