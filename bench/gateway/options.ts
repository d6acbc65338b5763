// The gateway bench's command line and BENCH_* settings (run.ts's header lists them), and what
// follows from them: which phases run, how many calls, and the command that re-runs the run.
import { existsSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');
/** The checkout whose server is measured (default this one): compare a change against another checkout. */
export const SERVER_ROOT = path.resolve(process.env.BENCH_SERVER_ROOT ?? ROOT);
export const HERE = import.meta.dirname;

export const PARTS = ['blocking', 'streaming', 'openai', 'openai-blocking', 'openai-streaming'] as const;
export type Part = (typeof PARTS)[number];
const USAGE = `usage: node --import tsx bench/gateway/run.ts [--quick] [--no-profile] [--no-readme] [--only ${PARTS.join('|')}]
       node --import tsx bench/gateway/run.ts --memory [--memory-calls N] [--no-readme]
       node --import tsx bench/gateway/run.ts --compare <checkout> [--traced] [--rounds N] [--only ${PARTS.join('|')}]
       node --import tsx bench/gateway/run.ts --tails [--quick] [--only ${PARTS.join('|')}]
       node --import tsx bench/gateway/run.ts --observability [--rounds N] [--only ${PARTS.join('|')}]
       node --import tsx bench/gateway/run.ts --price-forms [--rounds N] [--only ${PARTS.join('|')}]`;

function parseArguments(args: string[]) {
  const options = {
    quick: false,
    profile: true,
    readme: true,
    only: null as Part | null,
    memory: false,
    memoryCalls: 1_000_000,
    compare: null as string | null,
    /** --compare with both servers' metrics on and every call traced (to an OTLP sink on loopback): a tracing change measured against its before. */
    traced: false,
    rounds: 6,
    tails: false,
    observability: false,
    priceForms: false,
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
    else if (flag === '--observability') options.observability = true;
    else if (flag === '--price-forms') options.priceForms = true;
    else if (flag === '--traced') options.traced = true;
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
  if (options.traced && !options.compare) throw new Error(`--traced goes with --compare\n${USAGE}`);
  if (options.memory && options.only) throw new Error(`--memory runs on its own; leave out --only\n${USAGE}`);
  if (options.memory && options.compare) throw new Error(`--memory and --compare are separate runs\n${USAGE}`);
  if (options.tails && (options.memory || options.compare)) throw new Error(`--tails runs on its own: leave out --memory and --compare\n${USAGE}`);
  if (options.observability && (options.memory || options.compare || options.tails))
    throw new Error(`--observability runs on its own: leave out --memory, --compare and --tails\n${USAGE}`);
  if (options.priceForms && (options.memory || options.compare || options.tails || options.observability))
    throw new Error(`--price-forms runs on its own: leave out --memory, --compare, --tails and --observability\n${USAGE}`);
  return options;
}
export const OPTIONS = (() => {
  try {
    return parseArguments(process.argv.slice(2));
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
})();
export const QUICK = OPTIONS.quick;
export const PROFILE = OPTIONS.profile && !OPTIONS.memory && !OPTIONS.compare && !OPTIONS.tails && !OPTIONS.observability && !OPTIONS.priceForms;
/** Only a full run writes its block: a quick or partial run would replace the quiet figures. */
export const WRITE_README =
  OPTIONS.readme &&
  !QUICK &&
  !OPTIONS.only &&
  !OPTIONS.compare &&
  !OPTIONS.tails &&
  !OPTIONS.observability &&
  !OPTIONS.priceForms &&
  (!OPTIONS.memory || OPTIONS.memoryCalls === 1_000_000);
const envInt = (name: string, fallback: number) => {
  const raw = process.env[name];
  const value = raw ? Number(raw) : fallback;
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
  return value;
};
export const N = envInt('BENCH_N', QUICK ? 1000 : 5000);
// A server's JIT needs thousands of calls to reach its steady state: after 300, Tollbooth's lone
// p50 was twice its steady one, Portkey's 1.5 times, the fake upstream's 2-4 times (decision 0045).
export const WARMUP = envInt('BENCH_WARMUP', 5000);
/**
 * One call at a time: 0 measures each target's calls in one go, one target after the other; more
 * makes the targets compared take turns in blocks of this many counted calls (decision 0055).
 */
export const LATENCY_BLOCK = (() => {
  const value = Number(process.env.BENCH_LATENCY_BLOCK ?? 0);
  if (!Number.isInteger(value) || value < 0) throw new Error('BENCH_LATENCY_BLOCK must be a non-negative integer');
  return value;
})();
/** Throughput: 1 measures each target after the other; more makes the targets compared take turns in this many windows each (decision 0055). */
export const THROUGHPUT_ROUNDS = envInt('BENCH_THROUGHPUT_ROUNDS', 1);
/** Uncounted calls before each throughput window. */
export const WINDOW_WARMUP_MS = 300;
/** Uncounted calls that open each block of one call at a time. */
export const BLOCK_WARMUP = 10;
/** Lone calls timed by --tails, after WARMUP: enough for a p99 of the smallest group (about a tenth of them). */
export const TAIL_CALLS = envInt('BENCH_TAIL_CALLS', QUICK ? 4000 : 10_000);
/** How the targets compared shared the run's time, for the report. */
export const MEASURED_IN_TURN =
  LATENCY_BLOCK === 0 && THROUGHPUT_ROUNDS === 1
    ? 'Each target is measured after the other.'
    : `One call at a time, ${LATENCY_BLOCK === 0 ? 'each target after the other' : `the targets take turns in blocks of ${LATENCY_BLOCK} calls, each after ${BLOCK_WARMUP} uncounted ones`}; ` +
      `throughput, ${THROUGHPUT_ROUNDS === 1 ? 'each target after the other' : `the targets take turns in ${THROUGHPUT_ROUNDS} windows each, each after ${WINDOW_WARMUP_MS} ms of uncounted calls`} (decision 0055).`;
export const SECONDS = envInt('BENCH_SECONDS', QUICK ? 3 : 10);
export const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '10,50').split(',').map((c) => Number.parseInt(c, 10));
if (CONNECTIONS.some((c) => !Number.isInteger(c) || c <= 0)) throw new Error('BENCH_CONNECTIONS must be positive integers separated by commas');
/** The issue's throughput targets are at the largest connection count; streams are measured there only. */
export const MAX_CONNECTIONS = Math.max(...CONNECTIONS);
export const MEMORY_CONNECTIONS = envInt('BENCH_MEMORY_CONNECTIONS', 50);
/** The first RSS reading (issue 15: "after 10,000"). */
export const MEMORY_BASELINE_CALLS = 10_000;
/** RSS is compared as the median of the readings over this many calls from the first reading on and before the end. */
export const MEMORY_WINDOW_CALLS = 5_000;
export const SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const PRICE_CENTS = 1;
/** Generous: a noisy machine slows a run several times; a memory run at ~500 calls/s needs calls × 2 ms. */
export const RUN_DEADLINE_MS = OPTIONS.memory ? 10 * 60_000 + OPTIONS.memoryCalls * 2 : 20 * 60_000;
/** The command that re-runs this very run (the options given and the BENCH_* settings that change it). */
export const RERUN = [
  ...Object.entries(process.env)
    .filter(([name]) => name.startsWith('BENCH_') && name !== 'BENCH_KEEP_DB')
    .map(([name, value]) => `${name}=${value}`),
  'node --import tsx bench/gateway/run.ts',
  ...process.argv.slice(2),
].join(' ');
