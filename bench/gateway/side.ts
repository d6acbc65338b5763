// Another Tollbooth beside the bench's own, for the compare and observability runs: on a database,
// a port and a data directory of its own, set up as the bench's is (money.ts), with the first path's
// target pointed at it and checked to answer as expected before any window is measured.
import pg from 'pg';
import { type MoneySnapshot, type Setup, setUpTollbooth } from './money.ts';
import { cleanups, freePort } from './processes.ts';
import type { Bench } from './setup.ts';
import { answerProblem, newTally, type Target } from './targets.ts';

export async function startOtherSide(bench: Bench, { who, env: extraEnv = {}, root }: { who: string; env?: Record<string, string>; root?: string }) {
  const { paths, targets, setup } = bench;
  const database = await bench.createDatabase();
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const env = { PORT: String(port), PUBLIC_URL: origin, DATA_DIR: bench.newDataDir(), DATABASE_URL: database.url.toString(), ...extraEnv };
  // BENCH_SIDE_PROFILES=<dir>: V8 CPU profiles of the other sides (each written when its process exits).
  const profiles = process.env.BENCH_SIDE_PROFILES;
  const server = await bench.startTollbooth(profiles ? ['--cpu-prof', `--cpu-prof-dir=${profiles}/${who}`] : [], env, root);
  cleanups.push(() => server.stop());
  const db = new pg.Client({ connectionString: database.url.toString() });
  await db.connect();
  cleanups.push(async () => db.end());
  const sideSetup = await setUpTollbooth(origin, bench.issuer, db);
  const a = targets[paths[0]!.tollbooth];
  const target: Target = {
    ...a,
    origin,
    path: a.path.replace(setup.slug, sideSetup.slug),
    headers: { ...a.headers, authorization: `Bearer ${sideSetup.apiKey}` },
    tally: newTally(),
  };
  if (a.name === 'tollbooth-openai' || a.name === 'tollbooth-openai-stream') target.body = a.body.replace(setup.slug, sideSetup.slug);
  const problem = await answerProblem(target);
  if (problem) throw new Error(`${who} does not answer as expected: ${problem}\nLast lines it logged:\n${server.output().slice(-3000)}`);
  return { database, origin, server, db, setup: sideSetup, target };
}

/** One side of a run that sets servers against each other: its target, process, database and the money it held before. */
export interface RunSide<Name extends string> {
  name: Name;
  target: Target;
  pid: number | undefined;
  database: string;
  db: pg.Client;
  origin: string;
  setup: Setup;
  before: MoneySnapshot;
}
