// The run's set-up, before anything is measured: the fake upstream, a fresh database and a loopback
// OIDC issuer, Tollbooth as `npm start` runs it, Portkey, the bench's paid app and its consumer, every
// target, the check that each answers the same completion, and the money before the first call.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startTestIssuer, type TestIssuer } from '../../server/src/test-support/oidc-issuer.ts';
import { type MoneySnapshot, type Setup, setUpTollbooth, snapshot } from './money.ts';
import { HERE, OPTIONS, PRICE_CENTS, ROOT, SERVER_ROOT, SERVER_URL } from './options.ts';
import { type Child, cleanups, freePort, startChild, waitFor } from './processes.ts';
import { addTallies, answerProblem, newTally, PATHS, type PathSpec, type Tally, type Target, type TargetName } from './targets.ts';

/** Everything a phase needs of the run: its servers, database, app, targets and the money before it. */
export interface Bench {
  /** Prints a line with the seconds since the run started. */
  phase: (text: string) => void;
  loadAtStart: string;
  upstream: Child;
  upstreamOrigin: string;
  /** A connection to the server's postgres database, for CREATE DATABASE and pg_stat_*. */
  admin: pg.Client;
  pgVersion: string;
  /** A fresh database on the server, dropped at the end (unless BENCH_KEEP_DB). */
  createDatabase: () => Promise<{ name: string; url: URL }>;
  /** Tollbooth's database. */
  database: string;
  issuer: TestIssuer;
  /** A data directory of its own for each server, removed at the end. */
  newDataDir: () => string;
  /** Starts a Tollbooth server as `npm start` does (default: this run's, of SERVER_ROOT), once it answers /api/health. */
  startTollbooth: (extraArgs?: string[], extraEnv?: Record<string, string>, root?: string) => Promise<Child>;
  /** The Tollbooth process measured; the profile phase replaces it with one that has the tap. */
  tollbooth: Child;
  tollboothOrigin: string;
  /** The port Tollbooth's inspector listens on (started with --inspect for the memory run). */
  inspectorPort: number;
  /** Where the tails run's settlement tap writes (settlement-tap.ts). */
  tailsTapDir: string;
  portkeyVersion: string;
  portkeyPid: number | undefined;
  /** A connection to Tollbooth's database. */
  db: pg.Client;
  setup: Setup;
  targets: Record<TargetName, Target>;
  /** The paths this run measures (--only). */
  paths: PathSpec[];
  tollboothTargets: Target[];
  tallyByPath: () => [string, Tally][];
  tollboothTally: () => Tally;
  moneyBefore: MoneySnapshot;
  /** The calls the fake upstream has answered so far, from every target. */
  upstreamCalls: () => Promise<number>;
  upstreamCallsBefore: number;
}

export async function setUp(phase: (text: string) => void, loadAtStart: string): Promise<Bench> {
  const { upstream, upstreamOrigin } = await startUpstream(phase);
  const { admin, pgVersion, createDatabase, database, databaseUrl, issuer } = await openDatabase(phase);

  // 3. Tollbooth, as production starts it.
  const { tollboothOrigin, newDataDir, startTollbooth } = await tollboothStarter(upstreamOrigin, databaseUrl, issuer);
  /** The memory run reads the server at rest after full garbage collections, through its inspector. */
  const inspectorPort = OPTIONS.memory ? await freePort() : 0;
  /** The tails run notes when each settlement statement went out and came back, through a preload (settlement-tap.ts). */
  const tailsTapDir = OPTIONS.tails ? mkdtempSync(path.join(os.tmpdir(), 'tollbooth-bench-tails-')) : '';
  if (tailsTapDir) cleanups.push(async () => rmSync(tailsTapDir, { recursive: true, force: true }));
  let tollbooth = await startTollbooth(
    OPTIONS.memory ? [`--inspect=127.0.0.1:${inspectorPort}`] : OPTIONS.tails ? ['--import', 'tsx', '--import', path.join(HERE, 'settlement-tap.ts')] : [],
    OPTIONS.tails ? { BENCH_TAP_DIR: tailsTapDir } : {},
  );
  cleanups.push(() => tollbooth.stop());
  phase(`Tollbooth on ${tollboothOrigin} (pid ${tollbooth.process.pid})`);

  const { portkeyOrigin, portkeyVersion, portkeyPid } = await startPortkey(phase);

  // 5. Owner, live public paid app, consumer with an API key.
  const db = new pg.Client({ connectionString: databaseUrl.toString() });
  await db.connect();
  cleanups.push(async () => db.end());
  const setup = await setUpTollbooth(tollboothOrigin, issuer, db);
  phase(`app ${setup.slug} (${PRICE_CENTS} cent a call, live, public); consumer key ${setup.apiKey.slice(0, 11)}…`);

  const targets = buildTargets(setup, upstreamOrigin, portkeyOrigin, tollboothOrigin);
  const paths = PATHS.filter((p) => OPTIONS.memory || OPTIONS.only === null || p.parts.includes(OPTIONS.only));
  const tollboothTargets = PATHS.map((p) => targets[p.tollbooth]);
  const tallyByPath = (): [string, Tally][] => PATHS.map((p) => [p.label, { ...targets[p.tollbooth].tally }]);
  const tollboothTally = () => addTallies(tollboothTargets.map((t) => t.tally));

  // Each target answers what it should before anything is measured (these calls are charged before the first snapshot).
  const used = new Set(
    paths.flatMap((p) => (OPTIONS.memory ? [p.tollbooth] : OPTIONS.compare || OPTIONS.tails || OPTIONS.priceForms ? [] : [p.direct, p.tollbooth, p.portkey])),
  );
  if (OPTIONS.compare || OPTIONS.tails || OPTIONS.priceForms) used.add(paths[0]!.tollbooth);
  for (const name of used) {
    const problem = await answerProblem(targets[name]);
    if (problem) {
      const log = targets[name].side === 'tollbooth' ? `\nLast lines Tollbooth logged:\n${tollbooth.output().slice(-3000)}` : '';
      throw new Error(`${name} does not answer as expected: ${problem}${log}`);
    }
  }
  const moneyBefore = await snapshot(db, tollboothOrigin, setup);
  const upstreamCalls = async () => ((await (await fetch(`${upstreamOrigin}/calls`)).json()) as { calls: number }).calls;
  const upstreamCallsBefore = await upstreamCalls();
  phase(`${[...used].join(', ')} answer the same completion; measuring`);

  return {
    phase,
    loadAtStart,
    upstream,
    upstreamOrigin,
    admin,
    pgVersion,
    createDatabase,
    database,
    issuer,
    newDataDir,
    startTollbooth,
    get tollbooth() {
      return tollbooth;
    },
    set tollbooth(child: Child) {
      tollbooth = child;
    },
    tollboothOrigin,
    inspectorPort,
    tailsTapDir,
    portkeyVersion,
    portkeyPid,
    db,
    setup,
    targets,
    paths,
    tollboothTargets,
    tallyByPath,
    tollboothTally,
    moneyBefore,
    upstreamCalls,
    upstreamCallsBefore,
  };
}

/** 1. The fake upstream, in its own process. */
async function startUpstream(phase: (text: string) => void) {
  const upstream = startChild('upstream', ['--import', 'tsx', path.join(HERE, 'upstream.ts')], { cwd: ROOT });
  const upstreamPort = await Promise.race([
    waitFor('the fake upstream', async () => {
      const match = /\{"port":(\d+)\}/.exec(upstream.output());
      return match ? Number(match[1]) : null;
    }),
    upstream.exitedEarly,
  ]);
  const upstreamOrigin = `http://127.0.0.1:${upstreamPort}`;
  cleanups.push(() => upstream.stop());
  phase(`fake upstream on ${upstreamOrigin}`);
  return { upstream, upstreamOrigin };
}

/** 2. A fresh database and a loopback OIDC issuer. */
async function openDatabase(phase: (text: string) => void) {
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  const pgVersion = ((await admin.query('SHOW server_version')).rows[0] as { server_version: string }).server_version;
  cleanups.push(() => admin.end());
  const createDatabase = async () => {
    const name = `tb_bench_${randomBytes(5).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${name}`);
    cleanups.push(async () => {
      if (process.env.BENCH_KEEP_DB) console.log(`Kept the database ${name} (BENCH_KEEP_DB): drop it with DROP DATABASE ${name} WITH (FORCE)`);
      else await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    });
    const url = new URL(SERVER_URL);
    url.pathname = `/${name}`;
    return { name, url };
  };
  const { name: database, url: databaseUrl } = await createDatabase();
  const issuer = await startTestIssuer('http://tollbooth.bench/api');
  cleanups.push(() => issuer.close());
  phase(`database ${database} on PostgreSQL ${pgVersion}; OIDC issuer ${issuer.issuer}`);
  return { admin, pgVersion, createDatabase, database, databaseUrl, issuer };
}

/** Tollbooth's port, settings and start command (`npm start`'s, of the checkout measured). */
async function tollboothStarter(upstreamOrigin: string, databaseUrl: URL, issuer: TestIssuer) {
  const tollboothPort = await freePort();
  const tollboothOrigin = `http://127.0.0.1:${tollboothPort}`;
  const newDataDir = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tollbooth-bench-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    return dir;
  };
  const tollboothEnv = {
    PORT: String(tollboothPort),
    HOST: '127.0.0.1',
    PUBLIC_URL: tollboothOrigin,
    DATA_DIR: newDataDir(),
    DATABASE_URL: databaseUrl.toString(),
    OPENAI_BASE_URL: `${upstreamOrigin}/v1`,
    OPENAI_API_KEY: 'x',
    OIDC_ISSUER: issuer.issuer,
    OIDC_CLIENT_ID: 'bench-client',
    OIDC_AUDIENCE: issuer.audience,
    SECRET_KEY: randomBytes(32).toString('hex'),
    RATE_LIMIT_PER_MINUTE: '10000000',
    SIGNUP_CREDITS_CENTS: '100000000',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
  };
  // Node's flags as `npm start` gives them (server/package.json's start script, of the checkout measured).
  // `node <flags> <entry>`, the entry relative to server/.
  const startArguments = (root: string) => {
    const script = (JSON.parse(readFileSync(path.join(root, 'server/package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
    const words = script.trim().split(/\s+/);
    if (words[0] !== 'node' || words.length < 2) throw new Error(`unexpected start script in ${root}/server/package.json: ${script}`);
    return [...words.slice(1, -1), path.join('server', words.at(-1)!)];
  };
  // `npm start` compiles the server first (its prestart): so does the bench, once per checkout measured.
  const built = new Set<string>();
  const startTollbooth = async (extraArgs: string[] = [], extraEnv: Record<string, string> = {}, root = SERVER_ROOT) => {
    if (!built.has(root) && existsSync(path.join(root, 'server/scripts/build.mjs'))) {
      execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: path.join(root, 'server'), stdio: 'inherit' });
      built.add(root);
    }
    const env = { ...tollboothEnv, ...extraEnv, BENCH_SERVER_ROOT: root };
    const child = startChild('tollbooth', [...extraArgs, ...startArguments(root)], { cwd: root, env });
    await Promise.race([waitFor('Tollbooth', async () => ((await fetch(`${env.PUBLIC_URL}/api/health`)).ok ? true : null)), child.exitedEarly]);
    return child;
  };
  return { tollboothOrigin, newDataDir, startTollbooth };
}

/** 4. Portkey's gateway from npm (not for the memory run, which measures Tollbooth alone, nor --compare and --tails). */
async function startPortkey(phase: (text: string) => void) {
  const portkeyPort = await freePort();
  const portkeyOrigin = `http://127.0.0.1:${portkeyPort}`;
  const portkeyEntry = path.join(HERE, 'node_modules/@portkey-ai/gateway/build/start-server.js');
  let portkeyVersion = 'not run';
  let portkeyPid: number | undefined;
  if (!OPTIONS.memory && !OPTIONS.compare && !OPTIONS.tails && !OPTIONS.priceForms) {
    if (!existsSync(portkeyEntry)) throw new Error(`Portkey is not installed: run npm install --prefix bench/gateway (missing ${portkeyEntry})`);
    portkeyVersion = (JSON.parse(readFileSync(path.join(HERE, 'node_modules/@portkey-ai/gateway/package.json'), 'utf8')) as { version: string }).version;
    // The preload lets Portkey stream on Node (its header says why); blocking calls pass it untouched.
    const portkey = startChild('portkey', ['--import', path.join(HERE, 'portkey-stream-fix.mjs'), portkeyEntry, `--port=${portkeyPort}`, '--headless'], {
      cwd: HERE,
      quiet: true,
    });
    cleanups.push(() => portkey.stop());
    await Promise.race([waitFor('Portkey', async () => ((await fetch(`${portkeyOrigin}/`)).status > 0 ? true : null)), portkey.exitedEarly]);
    portkeyPid = portkey.process.pid;
    phase(`Portkey gateway ${portkeyVersion} on ${portkeyOrigin} (pid ${portkey.process.pid})`);
  }
  return { portkeyOrigin, portkeyVersion, portkeyPid };
}

/**
 * Every target: the same chat completion everywhere, what Tollbooth sends upstream for this app (a
 * stream also asks for usage, as Tollbooth's provider does), and Tollbooth's four paths to the app.
 */
function buildTargets(setup: Setup, upstreamOrigin: string, portkeyOrigin: string, tollboothOrigin: string): Record<TargetName, Target> {
  const chat = {
    model: 'gpt-4-turbo',
    messages: [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: 'Hello' },
    ],
    max_tokens: 2048,
    temperature: 0.7,
  };
  const chatBody = JSON.stringify(chat);
  const chatStreamBody = JSON.stringify({ ...chat, stream: true, stream_options: { include_usage: true } });
  // The caller's side of the OpenAI-compatible endpoint: the app is the model, the message its query.
  const openaiCall = { model: setup.slug, messages: [{ role: 'user', content: 'Hello' }] };
  const json = { 'content-type': 'application/json' };
  const upstreamHeaders = { ...json, authorization: 'Bearer x' };
  const portkeyHeaders = { ...upstreamHeaders, 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${upstreamOrigin}/v1` };
  const tollboothHeaders = { ...json, authorization: `Bearer ${setup.apiKey}` };
  const difyPath = `/api/app/${setup.slug}/completion-messages`;
  const difyCall = (mode: 'blocking' | 'streaming') => JSON.stringify({ inputs: { query: 'Hello' }, response_mode: mode, user: 'bench-end-user' });
  const target = (
    name: TargetName,
    side: Target['side'],
    stream: Target['stream'],
    origin: string,
    urlPath: string,
    headers: Record<string, string>,
    body: string,
  ): Target => ({
    name,
    side,
    stream,
    origin,
    path: urlPath,
    headers,
    body,
    tally: newTally(),
  });
  return {
    direct: target('direct', 'direct', null, upstreamOrigin, '/v1/chat/completions', upstreamHeaders, chatBody),
    'direct-stream': target('direct-stream', 'direct', 'openai', upstreamOrigin, '/v1/chat/completions', upstreamHeaders, chatStreamBody),
    portkey: target('portkey', 'portkey', null, portkeyOrigin, '/v1/chat/completions', portkeyHeaders, chatBody),
    'portkey-stream': target('portkey-stream', 'portkey', 'openai', portkeyOrigin, '/v1/chat/completions', portkeyHeaders, chatStreamBody),
    tollbooth: target('tollbooth', 'tollbooth', null, tollboothOrigin, difyPath, tollboothHeaders, difyCall('blocking')),
    'tollbooth-stream': target('tollbooth-stream', 'tollbooth', 'dify', tollboothOrigin, difyPath, tollboothHeaders, difyCall('streaming')),
    'tollbooth-openai': target('tollbooth-openai', 'tollbooth', null, tollboothOrigin, '/v1/chat/completions', tollboothHeaders, JSON.stringify(openaiCall)),
    'tollbooth-openai-stream': target(
      'tollbooth-openai-stream',
      'tollbooth',
      'openai',
      tollboothOrigin,
      '/v1/chat/completions',
      tollboothHeaders,
      JSON.stringify({ ...openaiCall, stream: true, stream_options: { include_usage: true } }),
    ),
  };
}
