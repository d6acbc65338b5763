// The price-forms run (--price-forms; issue 60's "Done when"): the per-token path's throughput against
// the per-call path's in the same run, on the same server and database. The bench's app (a whole
// cent per call) and a second app of the same owner on the same model, priced per token (with a
// minimum), are called in turn: `--rounds N` rounds of throughput windows at the largest connection
// count, their order turning each round, the ratio read within each round. Then every per-token
// call's recorded charge is checked against its rate × its recorded usage, and the ledger's sum.
import { chargeMicros, type Pricing, rateCardOf } from '@tollbooth/contract';
import { int, ms, roundsTable, table } from './format.ts';
import { backendCpu, measureLatencies, measureThroughput, processTicks, type ThroughputResult } from './measure.ts';
import { settled } from './money.ts';
import { MAX_CONNECTIONS, N, OPTIONS, RERUN, SECONDS, WARMUP } from './options.ts';
import type { Bench } from './setup.ts';
import { answerProblem, newTally, type Target } from './targets.ts';

// The fake upstream reports 12 input and 7 output tokens: at these rates a call costs 10,400 µ$, about
// the per-call app's cent, and the most per call (2 cents) bounds the authorisation as a creator's cap
// would (without it, max_tokens × the output rate would hold dollars a call).
const PER_TOKEN: Pricing = {
  form: 'per_token',
  input_per_mtok_micros: 400_000_000,
  output_per_mtok_micros: 800_000_000,
  minimum_micros: 1_000,
  max_call_micros: 20_000,
};

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted.length % 2 === 1 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
}

export async function runPriceForms(bench: Bench) {
  const { phase, paths, targets, issuer, tollboothOrigin, tollbooth, admin, database, db, setup } = bench;
  const ownerToken = await issuer.sign({ sub: 'bench-owner', email: 'owner@bench.test', name: 'Bench Owner' });
  const api = async <T>(method: string, url: string, body?: object): Promise<T> => {
    const response = await fetch(tollboothOrigin + url, {
      method,
      headers: { authorization: `Bearer ${ownerToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  const app = await api<{ slug: string; id: string }>('POST', '/api/app/', {
    name: 'Gateway Bench per token',
    type: 'prompt',
    visibility: 'public',
    pricing: PER_TOKEN,
  });
  await api('PATCH', `/api/app/${app.slug}/update_status/`, { status: 'live' });
  const perCall = targets[paths[0]!.tollbooth];
  // The same request to the per-token app: its slug in the path (Dify) or the body's model (OpenAI).
  const perToken: Target = {
    ...perCall,
    path: perCall.path.replace(setup.slug, app.slug),
    body: perCall.body.replace(`"model":"${setup.slug}"`, `"model":"${app.slug}"`),
    tally: newTally(),
  };
  const problem = await answerProblem(perToken);
  if (problem) throw new Error(`the per-token app does not answer as expected: ${problem}`);
  phase(`per-call app ${setup.slug}, per-token app ${app.slug} (${JSON.stringify(PER_TOKEN)}), both on ${paths[0]!.label}`);

  const sides = [
    { name: 'per call', target: perCall },
    { name: 'per token', target: perToken },
  ];
  const latencies = await measureLatencies(
    sides.map((side) => side.target),
    N,
    WARMUP,
  );
  for (const side of sides) await measureThroughput(side.target, MAX_CONNECTIONS, 5, 0);
  phase(`price forms: warmed; ${OPTIONS.rounds} rounds of ${SECONDS} s windows at ${MAX_CONNECTIONS} connections`);
  const postgres = backendCpu(admin, database);
  const results: { round: number; side: (typeof sides)[number]; result: ThroughputResult }[] = [];
  for (let round = 1; round <= OPTIONS.rounds; round++) {
    const order = round % 2 === 1 ? sides : [...sides].reverse();
    for (const side of order) {
      const result = await measureThroughput(side.target, MAX_CONNECTIONS, SECONDS, 1, async () => ({
        server: processTicks(tollbooth.process.pid),
        postgres: await postgres(),
      }));
      results.push({ round, side, result });
      phase(`round ${round} ${side.name}: ${int(result.perSecond)} calls/s, errors ${result.errors}`);
    }
  }

  // Every per-token call charged its rate × its usage; the ledger at 0.
  await settled(db);
  const card = rateCardOf(PER_TOKEN);
  const { rows } = await db.query<{ input_tokens: number; output_tokens: number; charge_micros: string }>(
    "SELECT input_tokens, output_tokens, charge_micros FROM invocations WHERE app_id = $1 AND status = 'success'",
    [app.id],
  );
  const wrong = rows.filter(
    (row) => Number(row.charge_micros) !== chargeMicros(card, { inputTokens: row.input_tokens, outputTokens: row.output_tokens, modelCostMicros: 0 }),
  ).length;
  const ledger = Number((await db.query<{ t: string }>('SELECT coalesce(sum(amount_cents), 0) AS t FROM ledger_entries')).rows[0]!.t);

  const of = (round: number, name: string) => results.find((r) => r.round === round && r.side.name === name)!.result;
  const ratios = Array.from({ length: OPTIONS.rounds }, (_, index) => of(index + 1, 'per token').perSecond / of(index + 1, 'per call').perSecond);
  const apart = Math.abs(1 - median(ratios));
  const lines = [
    `### Price forms: per token against per call, ${paths[0]!.label}, ${new Date().toISOString()}`,
    '',
    `- Per call: ${setup.slug} (whole cents). Per token: ${app.slug}, ${JSON.stringify(PER_TOKEN)}. Same owner, model and request; lone calls ${N} per side after ${WARMUP} warm-up calls; ${OPTIONS.rounds} rounds of ${SECONDS} s at ${MAX_CONNECTIONS} connections, the order turning each round.`,
    '',
    table(
      ['side', 'p50 ms', 'p99 ms', 'calls/s (median of rounds)'],
      sides.map((side, index) => [
        side.name,
        ms(latencies[index]!.first.p50),
        ms(latencies[index]!.first.p99),
        int(median(results.filter((r) => r.side === side).map((r) => r.result.perSecond))),
      ]),
    ),
    '',
    roundsTable(results, { cpu: false }),
    '',
    `- Per token / per call calls/s, median of rounds: ${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}); goal: at most 10 % apart — ${apart <= 0.1 ? 'met' : '**not met**'}.`,
    `- Per-token calls checked: ${rows.length}, charged other than rate × usage: ${wrong}; the ledger's sum: ${ledger} cents.`,
    `Re-run: ${RERUN}`,
  ];
  console.log(`\n${lines.join('\n')}`);
  if (wrong > 0 || ledger !== 0 || results.some(({ result }) => result.errors > 0)) process.exitCode = 1;
}
