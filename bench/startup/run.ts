// Start-up benchmark: how long the server command of `npm start` takes from spawn to answering
// GET /api/health, and what it costs, on a fresh DATA_DIR (it creates the embedded PGlite database
// and runs every migration) and on a restart of the same DATA_DIR; with --postgres also on a fresh
// database of the local PostgreSQL server and its restart. A benchmark, not a test.
//
//   node --import tsx bench/startup/run.ts [--runs 5] [--postgres] [--profile DIR] [--no-readme] [--server-root DIR]
//
// Each run starts the server as server/package.json's "start" script does (node with its flags and
// the compiled server, after its prestart build, which is timed on its own), waits for /api/health,
// reads the process's CPU time and resident memory from /proc, sends SIGTERM and times the exit. One
// unmeasured start comes first (with a start script that still runs tsx, it fills the transform cache). --profile adds one profiled restart and prints
// where its CPU went, by package. --server-root measures another checkout (a before/after).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { mapCompiledFrames } from '../compiled-frames.ts';
import { freePort } from '../free-port.ts';

const { values: options } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    postgres: { type: 'boolean', default: false },
    profile: { type: 'string' },
    'no-readme': { type: 'boolean', default: false },
    'server-root': { type: 'string' },
  },
});
const RUNS = Number(options.runs);
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error('--runs must be a positive integer');
const ROOT = path.resolve(import.meta.dirname, '../..');
const SERVER_DIR = path.join(path.resolve(options['server-root'] ?? ROOT), 'server');
const POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
const START_TIMEOUT_MS = 180_000;

/** The node arguments of server/package.json's "start" script (`node <flags> src/main.ts`), read once. */
const START_ARGUMENTS = ((): string[] => {
  const script = (JSON.parse(readFileSync(path.join(SERVER_DIR, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const words = script.split(/\s+/);
  if (words[0] !== 'node') throw new Error(`server's start script does not start with node: ${script}`);
  return words.slice(1);
})();

interface Start {
  readyMs: number;
  cpuMs: number;
  rssMiB: number;
  stopMs: number;
}

const cpuMsOf = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1000;
};
const rssMiBOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** Starts the server with `env`, waits for /api/health, reads its cost, stops it. */
async function startOnce(env: NodeJS.ProcessEnv, extraNodeArgs: string[] = []): Promise<Start> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, [...extraNodeArgs, ...START_ARGUMENTS], {
    cwd: SERVER_DIR,
    env: { ...env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: origin, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let readyMs = -1;
  while (performance.now() - started < START_TIMEOUT_MS) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the server exited before it answered:\n${stderr}`);
    const ok = await fetch(`${origin}/api/health`, { signal: AbortSignal.timeout(5_000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) {
      readyMs = performance.now() - started;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  if (readyMs < 0) {
    child.kill('SIGKILL');
    throw new Error(`the server did not answer /api/health within ${START_TIMEOUT_MS / 1000} s:\n${stderr}`);
  }
  const cpuMs = cpuMsOf(child.pid!);
  const rssMiB = rssMiBOf(child.pid!);
  const stopping = performance.now();
  child.kill('SIGTERM');
  await exited;
  return { readyMs, cpuMs, rssMiB, stopMs: performance.now() - stopping };
}

/** The environment `npm start` runs with, less what would point it elsewhere than its own DATA_DIR. */
function embeddedEnv(dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
  for (const name of ['DATABASE_URL', 'OIDC_ISSUER', 'SECRET_KEY', 'NODE_OPTIONS']) delete env[name];
  return env;
}

async function withPostgresDatabase<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const name = `tb_startup_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  try {
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${name}`;
    return await fn(url.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

type Kind = 'PGlite, fresh DATA_DIR' | 'PGlite, restart' | 'PostgreSQL, fresh database' | 'PostgreSQL, restart';
const results = new Map<Kind, Start[]>();
const record = (kind: Kind, start: Start) => {
  results.set(kind, [...(results.get(kind) ?? []), start]);
  console.log(
    `${kind.padEnd(28)} ready ${(start.readyMs / 1000).toFixed(2)} s, CPU ${(start.cpuMs / 1000).toFixed(2)} s, RSS ${start.rssMiB.toFixed(0)} MiB, stop ${start.stopMs.toFixed(0)} ms`,
  );
};

async function embeddedPair(): Promise<string> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tollbooth-startup-'));
  record('PGlite, fresh DATA_DIR', await startOnce(embeddedEnv(dataDir)));
  record('PGlite, restart', await startOnce(embeddedEnv(dataDir)));
  return dataDir;
}

async function postgresPair() {
  await withPostgresDatabase(async (url) => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tollbooth-startup-pg-'));
    try {
      const env = { ...embeddedEnv(dataDir), DATABASE_URL: url };
      record('PostgreSQL, fresh database', await startOnce(env));
      record('PostgreSQL, restart', await startOnce(env));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
}

/** CPU self time of a .cpuprofile by package (node_modules package, node:internal area, or our own source tree). */
function selfTimeByPackage(file: string): { name: string; ms: number }[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as {
    nodes: { id: number; callFrame: { url: string; functionName: string; lineNumber: number; columnNumber: number } }[];
    samples: number[];
    timeDeltas: number[];
  };
  mapCompiledFrames(profile.nodes);
  const urls = new Map(profile.nodes.map((node) => [node.id, node.callFrame.url || `(${node.callFrame.functionName.replace(/[()]/g, '')})`]));
  const byName = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const url = (urls.get(id) ?? '').replace(/^file:\/\//, '');
    const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
    const name = dependency
      ? dependency
      : url.startsWith('node:')
        ? url.split('/').slice(0, 2).join('/')
        : url.includes('/server/src/')
          ? `tollbooth ${url.split('/server/src/')[1]!.split('/')[0]}`
          : url.startsWith('wasm://')
            ? 'WebAssembly (PGlite)'
            : url;
    byName.set(name, (byName.get(name) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
  });
  return [...byName].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const seconds = (ms: number) => (ms / 1000).toFixed(2);

async function main() {
  const command = `node --import tsx bench/startup/run.ts${process.argv.slice(2).length ? ` ${process.argv.slice(2).join(' ')}` : ''}`;
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`Running: ${command}`);
  // `npm start` compiles the server first (prestart): timed apart from the starts, which it precedes.
  let buildMs: number | null = null;
  const buildScript = path.join(SERVER_DIR, 'scripts/build.mjs');
  if (existsSync(buildScript)) {
    const building = performance.now();
    execFileSync(process.execPath, [buildScript], { cwd: SERVER_DIR, stdio: 'inherit' });
    buildMs = performance.now() - building;
    console.log(`prestart build (server/dist) ${seconds(buildMs)} s`);
  }
  // Unmeasured: fills tsx's transform cache where the start script still uses tsx, as any start after the first finds it.
  rmSync(await embeddedPair(), { recursive: true, force: true });
  results.clear();
  console.log('(the start above filled the transform cache and is not counted)');
  const dataDirs: string[] = [];
  for (let run = 0; run < RUNS; run++) {
    dataDirs.push(await embeddedPair());
    if (options.postgres) await postgresPair();
  }

  let profileTable = '';
  if (options.profile) {
    const dir = path.resolve(options.profile);
    const before = new Set(existsSync(dir) ? readdirSync(dir) : []);
    const start = await startOnce(embeddedEnv(dataDirs[0]!), ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
    const written = readdirSync(dir).filter((name) => name.endsWith('.cpuprofile') && !before.has(name));
    // The main thread's profile is the largest (tsx's loader thread writes one too).
    const main = written.map((name) => path.join(dir, name)).sort((a, b) => statSync(b).size - statSync(a).size)[0];
    if (main) {
      const rows = selfTimeByPackage(main)
        .filter((row) => row.name !== '(idle)')
        .slice(0, 15);
      profileTable = [
        `CPU self time of the main thread in one profiled restart (ready in ${seconds(start.readyMs)} s under the profiler; ${main}), by package, idle time left out:`,
        '',
        '| package or area | ms |',
        '|---|---:|',
        ...rows.map((row) => `| ${row.name} | ${row.ms.toFixed(0)} |`),
      ].join('\n');
    }
  }
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });

  const commit = execFileSync('git', ['-C', path.dirname(SERVER_DIR), 'log', '-1', '--format=%h'], { encoding: 'utf8' }).trim();
  const dirty = execFileSync('git', ['-C', path.dirname(SERVER_DIR), 'status', '--porcelain', '--', 'server'], { encoding: 'utf8' }).trim() !== '';
  const table = [
    `| start (${RUNS} runs each) | ready, median s | ready, range s | CPU, median s | RSS at ready, median MiB | stop, median ms |`,
    '|---|---:|---:|---:|---:|---:|',
    ...[...results].map(
      ([kind, starts]) =>
        `| ${kind} | ${seconds(median(starts.map((s) => s.readyMs)))} | ${seconds(Math.min(...starts.map((s) => s.readyMs)))}–${seconds(Math.max(...starts.map((s) => s.readyMs)))} | ${seconds(median(starts.map((s) => s.cpuMs)))} | ${median(starts.map((s) => s.rssMiB)).toFixed(0)} | ${median(starts.map((s) => s.stopMs)).toFixed(0)} |`,
    ),
  ].join('\n');
  const report = [
    `- Date: ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}; Node ${process.version}; nproc ${execFileSync('nproc', { encoding: 'utf8' }).trim()}; load average before the run: ${load}`,
    `- Measured: ${options['server-root'] ? path.dirname(SERVER_DIR) : 'this checkout'}, commit ${commit}${dirty ? ' plus uncommitted changes under server/' : ''}; \`node ${START_ARGUMENTS.join(' ')}\` in server/ (server/package.json's start script), LOG_LEVEL=warn`,
    '- "ready" is from spawn to the first 200 from GET /api/health; CPU is the process\'s user + system time at that moment (every thread), from /proc; "stop" is SIGTERM to exit.',
    ...(buildMs === null
      ? []
      : [
          `- Before each \`npm start\`, its prestart compiles the server (server/scripts/build.mjs): ${seconds(buildMs)} s in this run, not in the figures below.`,
        ]),
    `- Re-run: \`${command}\` from the repository root.`,
    '',
    table,
    ...(profileTable ? ['', profileTable] : []),
  ].join('\n');
  console.log(`\n${report}`);
  if (!options['no-readme'] && !options['server-root']) writeReadme(report);
}

const README = path.join(ROOT, 'bench/README.md');
const BEGIN = '<!-- startup-bench:begin (written by bench/startup/run.ts) -->';
const END = '<!-- startup-bench:end -->';

/** Replaces the generated block of "## Start-up", adding the section at the end of the file the first time. */
function writeReadme(report: string) {
  const generated = `${BEGIN}\n${report}\n${END}`;
  const current = readFileSync(README, 'utf8');
  const next =
    current.includes(BEGIN) && current.includes(END)
      ? current.slice(0, current.indexOf(BEGIN)) + generated + current.slice(current.indexOf(END) + END.length)
      : `${current.trimEnd()}\n\n## Start-up\n\n\`bench/startup/run.ts\`: the server command of \`npm start\` from spawn to answering /api/health.\n\n${generated}\n`;
  writeFileSync(README, next);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
