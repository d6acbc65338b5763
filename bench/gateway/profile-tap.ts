// Preloaded into the Tollbooth child by the benchmark's profile phase only (node --import), never in
// production and never during the measured phases. Server code is not touched: it wraps
// node-postgres' Client.query and Pool.connect to count and time every statement and every wait
// for a pooled connection, and drives the V8 CPU profiler through node:inspector.
// SIGUSR2 once: reset the counters and start profiling. SIGUSR2 again: stop, and write
// tap.json + server.cpuprofile into BENCH_TAP_DIR, then tap.done.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { createRequire } from 'node:module';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

interface Stat {
  count: number;
  totalUs: number;
  maxUs: number;
}

const outDir = process.env.BENCH_TAP_DIR;
if (!outDir) throw new Error('profile-tap needs BENCH_TAP_DIR');

// The same pg module instance the server imports (resolved from the server package).
const serverRoot = process.env.BENCH_SERVER_ROOT ?? path.resolve(import.meta.dirname, '../..');
const requireFromServer = createRequire(path.join(serverRoot, 'server/package.json'));
const pg = requireFromServer('pg') as {
  Client: { prototype: Record<string, unknown> };
  Pool: { prototype: Record<string, unknown> };
};

let statements = new Map<string, Stat>();
let connectWait: Stat = { count: 0, totalUs: 0, maxUs: 0 };

const add = (stat: Stat, us: number) => {
  stat.count++;
  stat.totalUs += us;
  if (us > stat.maxUs) stat.maxUs = us;
};
const nowUs = () => Number(process.hrtime.bigint() / 1000n);
const normalise = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 200);

type AnyFunction = (...args: unknown[]) => unknown;
const record = (sql: string, startedUs: number) => {
  const key = normalise(sql);
  let stat = statements.get(key);
  if (!stat) {
    stat = { count: 0, totalUs: 0, maxUs: 0 };
    statements.set(key, stat);
  }
  add(stat, nowUs() - startedUs);
};

const originalQuery = pg.Client.prototype.query as AnyFunction;
pg.Client.prototype.query = function tappedQuery(this: unknown, ...args: unknown[]) {
  const config = args[0] as string | { text?: string; submit?: unknown } | undefined;
  const sql = typeof config === 'string' ? config : typeof config?.text === 'string' ? config.text : null;
  if (sql === null || (typeof config === 'object' && typeof config?.submit === 'function')) return originalQuery.apply(this, args);
  const started = nowUs();
  const last = args.length - 1;
  if (typeof args[last] === 'function') {
    const callback = args[last] as AnyFunction;
    args[last] = (...results: unknown[]) => {
      record(sql, started);
      return callback(...results);
    };
    return originalQuery.apply(this, args);
  }
  const result = originalQuery.apply(this, args) as Promise<unknown>;
  return result.then(
    (value) => {
      record(sql, started);
      return value;
    },
    (error: unknown) => {
      record(sql, started);
      throw error;
    },
  );
};

const originalConnect = pg.Pool.prototype.connect as AnyFunction;
pg.Pool.prototype.connect = function tappedConnect(this: unknown, ...args: unknown[]) {
  const started = nowUs();
  if (typeof args[0] === 'function') {
    const callback = args[0] as AnyFunction;
    return originalConnect.call(this, (...results: unknown[]) => {
      add(connectWait, nowUs() - started);
      return callback(...results);
    });
  }
  return (originalConnect.apply(this, args) as Promise<unknown>).then((client) => {
    add(connectWait, nowUs() - started);
    return client;
  });
};

const session = new Session();
session.connect();
const post = (method: string, params?: object) =>
  new Promise<unknown>((resolve, reject) => session.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result))));

let window: { startedUs: number; cpu: NodeJS.CpuUsage; elu: ReturnType<typeof performance.eventLoopUtilization> } | null = null;

process.on('SIGUSR2', () => {
  void (async () => {
    if (!window) {
      statements = new Map();
      connectWait = { count: 0, totalUs: 0, maxUs: 0 };
      await post('Profiler.enable');
      await post('Profiler.setSamplingInterval', { interval: 250 });
      await post('Profiler.start');
      window = { startedUs: nowUs(), cpu: process.cpuUsage(), elu: performance.eventLoopUtilization() };
      writeFileSync(path.join(outDir, 'tap.started'), '');
      return;
    }
    const wallUs = nowUs() - window.startedUs;
    const cpu = process.cpuUsage(window.cpu);
    const elu = performance.eventLoopUtilization(window.elu);
    const { profile } = (await post('Profiler.stop')) as { profile: unknown };
    window = null;
    writeFileSync(path.join(outDir, 'server.cpuprofile'), JSON.stringify(profile));
    writeFileSync(
      path.join(outDir, 'tap.json'),
      JSON.stringify({
        wallUs,
        cpuUserUs: cpu.user,
        cpuSystemUs: cpu.system,
        eventLoopUtilization: elu.utilization,
        connectWait,
        statements: [...statements.entries()].map(([sql, stat]) => ({ sql, ...stat })),
      }),
    );
    writeFileSync(path.join(outDir, 'tap.done'), '');
  })();
});
