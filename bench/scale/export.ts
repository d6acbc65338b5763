// A year of one app's calls exported as CSV (issue 59, decision 0130): seeds N invocations (default
// 1,000,000) of one app over the last 365 days into a PostgreSQL database of its own, starts the real
// server (buildApp + listen) against it, and downloads `invocations.csv?days=366` through HTTP without
// keeping the body (bytes and lines counted as they arrive), sampling this process's resident memory
// (server included) every 20 ms. Then the same download by a client that stops reading for 2 s after
// its first MiB: the cursor's FETCHes counted before and after the pause show the server stop reading
// once the socket's buffers are full, and the heap after a full GC (with --expose-gc) what it holds.
//
//   node --expose-gc --import tsx bench/scale/export.ts [--invocations 1000000] [--keep]
//   env: DATABASE_URL (a PostgreSQL server URL, default postgres://postgres@127.0.0.1:5432/postgres)
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { buildApp } from '../../server/src/app.ts';
import { type Database, openPostgres, type Queryable } from '../../server/src/db/client.ts';
import { migrate } from '../../server/src/db/migrate.ts';
import { startTestIssuer } from '../../server/src/test-support/oidc-issuer.ts';
import { benchConfig } from '../bench-server.ts';

const { values: args } = parseArgs({ options: { invocations: { type: 'string', default: '1000000' }, keep: { type: 'boolean', default: false } } });
const N = Number(args.invocations);
if (!Number.isInteger(N) || N <= 0) throw new Error('--invocations must be a positive integer');
const SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NAME = `tb_bench_export_${Date.now().toString(36)}`;
const log = (message: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${message}`);
const MiB = 1024 ** 2;
let fetches = 0;

const url = new URL(SERVER_URL);
url.pathname = `/${NAME}`;

interface Download {
  status: number;
  /** For the pausing client: FETCHes when it stopped reading, when it started again, in all; heap growth after GC in the pause. */
  pause?: { fetchesAtStop: number; fetchesAtResume: number; heapGrowth: number | null };
  bytes: number;
  lines: number;
  firstByteMs: number;
  totalMs: number;
  rssStart: number;
  rssPeak: number;
}

/** GETs `urlPath`, counting what arrives and holding none of it; `pausing`: stop reading for 2 s after the first MiB. */
function download(port: number, urlPath: string, token: string, pausing: boolean): Promise<Download> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const rssStart = process.memoryUsage().rss;
    let rssPeak = rssStart;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    }, 20);
    let bytes = 0;
    let lines = 0;
    let firstByteMs = 0;
    let pause: Download['pause'];
    const heapNow = () => {
      (globalThis as { gc?: () => void }).gc?.();
      return process.memoryUsage().heapUsed;
    };
    const heapStart = heapNow();
    const hasGc = typeof (globalThis as { gc?: unknown }).gc === 'function';
    const req = httpRequest({ host: '127.0.0.1', port, path: urlPath, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.on('data', (chunk: Buffer) => {
        if (bytes === 0) firstByteMs = performance.now() - started;
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
        if (pausing && !pause && bytes >= MiB) {
          const fetchesAtStop = fetches;
          pause = { fetchesAtStop, fetchesAtResume: fetchesAtStop, heapGrowth: null };
          res.pause();
          setTimeout(() => {
            pause = { fetchesAtStop, fetchesAtResume: fetches, heapGrowth: hasGc ? heapNow() - heapStart : null };
            res.resume();
          }, 2000);
        }
      });
      res.on('end', () => {
        clearInterval(sampler);
        rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
        resolve({ status: res.statusCode ?? 0, bytes, lines, firstByteMs, totalMs: performance.now() - started, rssStart, rssPeak, pause });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function main() {
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${NAME}`);
  const pool = await openPostgres(url.toString(), 10);
  // The app's database, counting the export cursor's FETCHes.
  const db: Database = {
    ...pool,
    transaction: (fn) =>
      pool.transaction((tx) =>
        fn({
          query: ((sql: string, params?: readonly unknown[]) => {
            if (sql.startsWith('FETCH')) fetches++;
            return tx.query(sql, params);
          }) as Queryable['query'],
          exec: (sql) => tx.exec(sql),
        }),
      ),
  };
  const issuer = await startTestIssuer();
  try {
    await migrate(db);
    const config = benchConfig(url.toString(), issuer);
    const app = await buildApp({ config, db, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as AddressInfo).port;
    const token = await issuer.sign({ sub: 'bench-exporter', email: 'exporter@bench.test' }, { expiresIn: '6h' });
    const created = await app.inject({
      method: 'POST',
      url: '/api/app/',
      headers: { authorization: `Bearer ${token}` },
      payload: { name: 'Exported', type: 'prompt', visibility: 'public' },
    });
    if (created.statusCode !== 201) throw new Error(`creating the app answered ${created.statusCode}: ${created.body}`);
    const { id, slug } = created.json() as { id: string; slug: string };

    log(`inserting ${N.toLocaleString('en-US')} invocations over 365 days`);
    const t = performance.now();
    await db.query(
      `INSERT INTO invocations (app_id, end_user, status, outcome, latency_ms, input_tokens, output_tokens, price_cents, created_at)
       SELECT $1, 'user-' || (g % 20000), 'success', 'success', 200 + g % 900, 30 + g % 50, 60 + g % 200, 2,
              now() - make_interval(secs => (g::float8 / $2) * 365 * 86400)
         FROM generate_series(1, $2::int) g`,
      [id, N],
    );
    await db.query('ANALYZE invocations');
    const insertSeconds = (performance.now() - t) / 1000;
    log(`inserted in ${insertSeconds.toFixed(1)} s`);

    const results: [string, Download][] = [];
    for (const pausing of [false, true]) {
      fetches = 0;
      const result = await download(port, `/api/app/${slug}/analytics/invocations.csv?days=366`, token, pausing);
      if (result.status !== 200) throw new Error(`invocations.csv answered ${result.status}`);
      results.push([pausing ? 'stops reading 2 s after 1 MiB' : 'reads as fast as it can', result]);
      log(
        `${pausing ? 'pausing' : 'fast'}: ${result.lines - 1} rows, ${(result.bytes / MiB).toFixed(1)} MiB in ${(result.totalMs / 1000).toFixed(1)} s, ${fetches} FETCHes`,
      );
    }
    const paused = results[1]![1].pause;
    // The pausing client stops after the first MiB: a smaller export never pauses (about 10,000 calls make one).
    if (!paused) throw new Error(`the export of ${N} calls is under 1 MiB, so the pausing client never paused: use --invocations 10000 or more`);
    await app.close();

    const out = [
      `Export benchmark, ${new Date().toISOString().slice(0, 16)}Z: one app's ${N.toLocaleString('en-US')} calls over 365 days, invocations.csv?days=366 (PostgreSQL ${(await admin.query('SHOW server_version')).rows[0].server_version}, ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(1)}); insert ${insertSeconds.toFixed(0)} s`,
      '',
      '| client | rows | MiB | first byte | total | rows/s | process RSS at start | peak growth during the download |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
      ...results.map(
        ([label, r]) =>
          `| ${label} | ${(r.lines - 1).toLocaleString('en-US')} | ${(r.bytes / MiB).toFixed(1)} | ${r.firstByteMs.toFixed(0)} ms | ${(r.totalMs / 1000).toFixed(1)} s | ${Math.round((r.lines - 1) / (r.totalMs / 1000)).toLocaleString('en-US')} | ${(r.rssStart / MiB).toFixed(0)} MiB | ${((r.rssPeak - r.rssStart) / MiB).toFixed(1)} MiB |`,
      ),
      '',
      `The pausing client stopped reading after ${paused.fetchesAtStop} FETCHes of 1,000 rows; 2 s later the server had made ${paused.fetchesAtResume} (${paused.fetchesAtResume - paused.fetchesAtStop} more, what the loopback socket's buffers took, then it waited)${paused.heapGrowth === null ? '' : `, and the heap after a full GC was ${(paused.heapGrowth / MiB).toFixed(1)} MiB above its size before the download`}. RSS grows with garbage not yet collected, not with rows held.`,
      '',
      `Re-run: nice -n 10 node --expose-gc --import tsx bench/scale/export.ts --invocations ${N}`,
    ];
    console.log(out.join('\n'));
  } finally {
    await db.close();
    await issuer.close();
    if (!args.keep) await admin.query(`DROP DATABASE IF EXISTS ${NAME} WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
