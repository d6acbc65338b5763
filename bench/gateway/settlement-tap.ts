// Preloaded into the Tollbooth child by the benchmark's `--tails` run only (node --import), never in
// production and never in the other runs. Server code is not touched: it wraps node-postgres'
// Client.query and notes when each settlement statement (billing/paid-call/settlement-sql.ts, the one that starts
// with `WITH items AS`) was sent and when its result came back, on the monotonic clock that the load
// generator's process.hrtime.bigint() reads too. It adds two clock reads per statement.
// SIGUSR2: writes settlements.json ([sent, answered] nanosecond pairs, as strings) into
// BENCH_TAP_DIR, then settlements.done.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const outDir = process.env.BENCH_TAP_DIR;
if (!outDir) throw new Error('settlement-tap needs BENCH_TAP_DIR');

// The same pg module instance the server imports (resolved from the server package).
const serverRoot = process.env.BENCH_SERVER_ROOT ?? path.resolve(import.meta.dirname, '../..');
const pg = createRequire(path.join(serverRoot, 'server/package.json'))('pg') as { Client: { prototype: Record<string, unknown> } };

type AnyFunction = (...args: unknown[]) => unknown;
const spans: [string, string][] = [];
const isSettlement = (sql: string) => sql.trimStart().startsWith('WITH items AS');

const originalQuery = pg.Client.prototype.query as AnyFunction;
pg.Client.prototype.query = function tappedQuery(this: unknown, ...args: unknown[]) {
  const config = args[0] as string | { text?: string } | undefined;
  const sql = typeof config === 'string' ? config : config?.text;
  if (typeof sql !== 'string' || !isSettlement(sql)) return originalQuery.apply(this, args);
  const sent = process.hrtime.bigint();
  const note = () => spans.push([String(sent), String(process.hrtime.bigint())]);
  const last = args.length - 1;
  // The pool passes a callback; a client's own query returns a promise.
  if (typeof args[last] === 'function') {
    const callback = args[last] as AnyFunction;
    args[last] = function answered(this: unknown, ...results: unknown[]) {
      note();
      return callback.apply(this, results);
    };
    return originalQuery.apply(this, args);
  }
  const result = originalQuery.apply(this, args) as Promise<unknown>;
  void result.then(note, note);
  return result;
};

process.on('SIGUSR2', () => {
  writeFileSync(path.join(outDir, 'settlements.json'), JSON.stringify(spans));
  writeFileSync(path.join(outDir, 'settlements.done'), '');
});
