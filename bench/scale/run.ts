import { Agent } from 'node:http';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openPostgres } from '../../server/src/db/client.ts';
import { migrate } from '../../server/src/db/migrate.ts';
import { startTestIssuer } from '../../server/src/test-support/oidc-issuer.ts';
import { adoptBenchUsers, type BenchServer, databaseOn, log, positiveOption, startBenchServer, withClient } from '../bench-server.ts';
import { agent, http, measureRead, ms, type ReadResult, readsTable, summary, table } from '../read-figures.ts';
import { finishInvocationsAndRollups, startBulkLoad } from '../seed-rollups.ts';

const { values: args } = parseArgs({
  options: {
    invocations: { type: 'string', default: '1000000' },
    apps: { type: 'string', default: '10000' },
    busy: { type: 'string', default: '1000' },
    creators: { type: 'string', default: '100' },
    users: { type: 'string', default: '20000' },
    days: { type: 'string', default: '365' },
    requests: { type: 'string', default: '100' },
    'paid-calls': { type: 'string', default: '5000' },
    keep: { type: 'boolean', default: false },
    // A database a run with --keep left (its name in that run's log): measured again without seeding.
    reuse: { type: 'string' },
  },
});
const positive = positiveOption(args);
const N = positive('invocations');
const APPS = positive('apps');
const BUSY = positive('busy');
const CREATORS = positive('creators');
const USERS = positive('users');
const DAYS = positive('days');
const REQUESTS = positive('requests');
const PAID_CALLS = positive('paid-calls');
const SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const RUN = Date.now().toString(36);
const OWNER = 'bench-owner';
const CALLER = 'bench-caller';
const PERIODS = [7, 30, 90] as const;
const WARMUP = 10;
const RERUN = `nice -n 10 node --import tsx bench/scale/run.ts --invocations ${N}${REQUESTS === 100 ? '' : ` --requests ${REQUESTS}`}`;

const databaseUrl = (name: string) => databaseOn(SERVER_URL, name);

// ---------------------------------------------------------------------------------------------
// Seeding

/**
 * Month partitions over the last DAYS days (the fresh database's first partition, the empty table
 * as it was, covers everything before the cut-over: replaced here by months, as a database that ran
 * partitioned for a year has them).
 */
async function partitionThePastYear(client: pg.Client) {
  for (const table of ['invocations', 'test_runs']) {
    const { rows } = await client.query<{ ends: Date }>('SELECT ends FROM history_partitions WHERE name = $1', [`${table}_before_partitioning`]);
    const cutover = rows[0]!.ends;
    await client.query(`ALTER TABLE ${table} DETACH PARTITION ${table}_before_partitioning`);
    await client.query(`DROP TABLE ${table}_before_partitioning`);
    await client.query('DELETE FROM history_partitions WHERE name = $1', [`${table}_before_partitioning`]);
    let start = new Date(Date.UTC(cutover.getUTCFullYear(), cutover.getUTCMonth() - Math.ceil(DAYS / 28), 1));
    await client.query(`CREATE TABLE ${table}_before_bench PARTITION OF ${table} FOR VALUES FROM (MINVALUE) TO ('${start.toISOString()}')`);
    await client.query('INSERT INTO history_partitions (name, parent, starts, ends) VALUES ($1, $2, NULL, $3)', [`${table}_before_bench`, table, start]);
    while (start < cutover) {
      const next = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
      const ends = next < cutover ? next : cutover;
      const name = `${table}_p${start.toISOString().slice(0, 10).replaceAll('-', '')}`;
      await client.query(`CREATE TABLE ${name} PARTITION OF ${table} FOR VALUES FROM ('${start.toISOString()}') TO ('${ends.toISOString()}')`);
      await client.query('INSERT INTO history_partitions (name, parent, starts, ends) VALUES ($1, $2, $3, $4)', [name, table, start, ends]);
      start = ends;
    }
  }
}

/** Inserts the invocations with generate_series and computes every rollup from them; returns seconds per step. */
async function seed(url: string, ownerId: string): Promise<{ total: number; steps: [string, number][] }> {
  const started = performance.now();
  const steps: [string, number][] = [];
  await withClient(url, async (client) => {
    const step = async (label: string, sql: string, params: unknown[] = []) => {
      const t = performance.now();
      const result = await client.query(sql, params);
      const seconds = (performance.now() - t) / 1000;
      steps.push([label, seconds]);
      log(`seed: ${label} (${result.rowCount ?? 0} rows, ${seconds.toFixed(1)} s)`);
    };
    await partitionThePastYear(client);
    await startBulkLoad(client);
    await step(
      'creators',
      `INSERT INTO users (issuer, subject, email) SELECT 'https://issuer.bench', 'bench-creator-' || g, 'creator' || g || '@bench.test' FROM generate_series(1, $1::int - 1) g`,
      [CREATORS],
    );
    // The busy apps are the bench owner's; the others are spread over the other creators.
    await step(
      'apps',
      `INSERT INTO apps (owner_id, name, slug, type, status, visibility, price_cents, created_at)
       SELECT CASE WHEN g <= $2 THEN $1 ELSE (SELECT array_agg(id ORDER BY subject) FROM users WHERE subject LIKE 'bench-creator-%')[1 + g % ($4::int - 1)] END,
              'Bench App ' || g, 'bench-app-' || lpad(g::text, 5, '0'), CASE WHEN g % 5 = 0 THEN 'workflow' ELSE 'prompt' END,
              'live', 'public', 1 + g % 100, now() - interval '1 day' * ($5 + 30) + interval '1 second' * g
       FROM generate_series(1, $3::int) g`,
      [ownerId, BUSY, APPS, CREATORS, DAYS],
    );
    await client.query('ALTER TABLE invocations DROP CONSTRAINT invocations_pkey');
    await client.query('DROP INDEX invocations_app_created');
    // 90 % of the calls on the busy apps, the rest over all the others; uniform over the end users
    // and the last DAYS UTC days up to now; 5 % failures over five error types.
    await step(
      `${N} invocations`,
      `INSERT INTO invocations (app_id, end_user, mode, status, error_type, latency_ms, input_tokens, output_tokens, price_cents, created_at)
       SELECT CASE WHEN s.r_busy < 0.9 THEN a.ids[1 + s.g % $2::int] ELSE a.ids[1 + $2::int + s.g % ($5::int - $2::int)] END,
              'end-user-' || floor(s.r_user * $3::int)::int,
              'completion',
              CASE WHEN s.r_err < 0.05 THEN 'error' ELSE 'success' END,
              CASE WHEN s.r_err < 0.05 THEN (ARRAY['provider_error', 'provider_timeout', 'rate_limited', 'invalid_param', ''])[1 + floor(s.r_err * 100)::int] ELSE '' END,
              (50 + s.r_lat * s.r_lat * 4000)::int,
              CASE WHEN s.r_err < 0.05 THEN 0 ELSE (20 + s.r_tok * 800)::int END,
              CASE WHEN s.r_err < 0.05 THEN 0 ELSE (5 + s.r_tok * s.r_lat * 400)::int END,
              CASE WHEN s.r_err < 0.05 THEN 0 ELSE 1 + (s.g % $2::int) % 100 END,
              p.start + (now() - p.start) * s.r_time
       FROM (SELECT g, random() AS r_busy, random() AS r_user, random() AS r_err, random() AS r_lat, random() AS r_tok, random() AS r_time FROM generate_series(1, $1::int) g) s,
            (SELECT array_agg(id ORDER BY slug) AS ids FROM apps WHERE slug LIKE 'bench-app-%') a,
            (SELECT (date_trunc('day', now() AT TIME ZONE 'UTC') - interval '1 day' * ($4::int - 1)) AT TIME ZONE 'UTC' AS start) p`,
      [N, BUSY, USERS, DAYS, APPS],
    );
    await finishInvocationsAndRollups(step);
  });
  return { total: (performance.now() - started) / 1000, steps };
}

// ---------------------------------------------------------------------------------------------
// One server on one database

type Server = BenchServer;
const startServer = (url: string, issuer: Awaited<ReturnType<typeof startTestIssuer>>) => startBenchServer(url, issuer, { owner: OWNER, caller: CALLER });

/** A paid app of the caller and an API key of the owner on one server (demo model); returns one call of it, warmed up. */
async function paidCaller(server: Server): Promise<(via?: Agent) => Promise<void>> {
  const { port, ownerToken, callerToken } = server;
  const created = await http(port, 'POST', '/api/app/', callerToken, {
    name: `Paid bench ${Date.now()}`,
    type: 'prompt',
    visibility: 'public',
    price_cents: 1,
  });
  if (created.status !== 201) throw new Error(`creating the paid app answered ${created.status}: ${created.body}`);
  const paidApp = JSON.parse(created.body) as { slug: string };
  await http(port, 'PATCH', `/api/app/${paidApp.slug}/update_status/`, callerToken, { status: 'live' });
  const key = JSON.parse((await http(port, 'POST', '/api/keys/', ownerToken, { name: `bench ${Date.now()}` })).body).key as string;
  const call = async (via: Agent = agent) => {
    const response = await http(
      port,
      'POST',
      `/api/app/${paidApp.slug}/completion-messages`,
      key,
      { inputs: { query: 'hi' }, response_mode: 'blocking', user: 'bench-user' },
      via,
    );
    if (response.status !== 200) throw new Error(`a paid call answered ${response.status}: ${response.body}`);
  };
  for (let i = 0; i < 50; i++) await call();
  return call;
}

/** `count` paid calls one at a time; their milliseconds. */
async function oneAtATime(call: (via?: Agent) => Promise<void>, count: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await call();
    samples.push(performance.now() - started);
  }
  return samples;
}

/** `count` paid calls over 10 connections; their seconds. */
async function tenAtATime(call: (via?: Agent) => Promise<void>, count: number): Promise<number> {
  const wide = new Agent({ keepAlive: true, maxSockets: 10 });
  let left = count;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (left-- > 0) await call(wide);
    }),
  );
  wide.destroy();
  return (performance.now() - started) / 1000;
}

const ROUNDS = 5;

/**
 * The paid path on the empty and the loaded database, in alternating rounds (the two servers in
 * this one process), so that whatever else the machine is doing weighs on both alike: PAID_CALLS
 * calls one at a time and twice as many at 10 connections on each.
 */
async function paidPaths(empty: Server, loaded: Server) {
  const calls = [await paidCaller(empty), await paidCaller(loaded)] as const;
  const samples: [number[], number[]] = [[], []];
  const seconds = [0, 0];
  for (let round = 0; round < ROUNDS; round++) {
    for (const which of round % 2 === 0 ? [0, 1] : [1, 0]) {
      samples[which]!.push(...(await oneAtATime(calls[which]!, Math.ceil(PAID_CALLS / ROUNDS))));
      seconds[which]! += await tenAtATime(calls[which]!, Math.ceil((PAID_CALLS * 2) / ROUNDS));
    }
  }
  const figures = (which: 0 | 1) => ({ ...summary(samples[which]), perSecond: (Math.ceil((PAID_CALLS * 2) / ROUNDS) * ROUNDS) / seconds[which]! });
  return { empty: figures(0), loaded: figures(1) };
}

async function createDatabase(name: string) {
  await withClient(SERVER_URL, (admin) => admin.query(`CREATE DATABASE ${name}`));
  const db = await openPostgres(databaseUrl(name), 1);
  await migrate(db);
  await db.close();
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const machine = {
    date: new Date().toISOString().slice(0, 10),
    cpus: `${os.availableParallelism()} × ${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}`,
    memory: `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    node: process.version,
    postgres: '',
    load: os.loadavg()[0]!.toFixed(1),
  };
  const emptyName = `tb_bench_scale_empty_${RUN}`;
  const loadedName = args.reuse ?? `tb_bench_scale_${RUN}`;
  const issuer = await startTestIssuer();
  try {
    // An empty database beside the loaded one, for the paid path on both (measured at the end).
    await createDatabase(emptyName);
    const emptyServer = await startServer(databaseUrl(emptyName), issuer);

    // The loaded database.
    if (args.reuse === undefined) await createDatabase(loadedName);
    const url = databaseUrl(loadedName);
    if (args.reuse !== undefined) await adoptBenchUsers(url, issuer, [OWNER, CALLER]);
    const server = await startServer(url, issuer);
    const client = new pg.Client({ connectionString: url });
    client.on('error', (error) => log(`bench connection: ${error.message}`));
    await client.connect();
    // EXPLAIN (ANALYZE) runs the statements as the server's reads do: without JIT (db/reads.ts).
    await client.query('SET jit = off');
    machine.postgres = (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version;
    const ownerId = (await client.query<{ id: string }>('SELECT id FROM users WHERE subject = $1', [OWNER])).rows[0]!.id;
    log(`seeding ${loadedName}: ${N} invocations, ${APPS} apps (${BUSY} busy), ${CREATORS} creators, ${USERS} end users, ${DAYS} days`);
    const seeded = args.reuse === undefined ? await seed(url, ownerId) : { total: 0, steps: [] as [string, number][] };
    log(`seeded in ${seeded.total.toFixed(0)} s`);
    const sizes = (
      await client.query<{ database: string; invocations: string; partitions: number }>(
        `SELECT pg_database_size(current_database())::text AS database,
                (SELECT sum(pg_total_relation_size(i.inhrelid)) FROM pg_inherits i WHERE i.inhparent = 'invocations'::regclass)::text AS invocations,
                (SELECT count(*)::int FROM pg_inherits i WHERE i.inhparent = 'invocations'::regclass) AS partitions`,
      )
    ).rows[0]!;
    const busySlugs = (
      await client.query<{ slug: string }>('SELECT slug FROM apps WHERE owner_id = $1 AND deleted_at IS NULL AND slug LIKE $2 ORDER BY slug', [
        ownerId,
        'bench-app-%',
      ])
    ).rows.map((row) => row.slug);
    // Statements: the owner's, as the monthly job leaves them (read through the API, which makes the current one).
    const endpoints: { name: string; path: (slug: string) => string; next?: boolean }[] = [];
    for (const days of PERIODS) endpoints.push({ name: `dashboard days=${days}`, path: () => `/api/analytics/dashboard/?days=${days}` });
    for (const days of PERIODS) endpoints.push({ name: `usage days=${days}`, path: (slug) => `/api/app/${slug}/analytics/usage/?days=${days}` });
    for (const days of PERIODS) endpoints.push({ name: `performance days=${days}`, path: (slug) => `/api/app/${slug}/analytics/performance/?days=${days}` });
    endpoints.push({ name: 'recent invocations limit=100', path: (slug) => `/api/app/${slug}/analytics/invocations/?limit=100` });
    endpoints.push({ name: 'recent invocations limit=20, 2nd page', path: (slug) => `/api/app/${slug}/analytics/invocations/?limit=20`, next: true });
    endpoints.push({ name: 'usage.csv days=90', path: (slug) => `/api/app/${slug}/analytics/usage.csv?days=90` });
    endpoints.push({ name: 'catalog', path: () => '/api/catalog/' });
    endpoints.push({ name: 'catalog app', path: (slug) => `/api/catalog/${slug}` });
    endpoints.push({ name: 'statements', path: () => '/api/billing/statements/' });
    endpoints.push({ name: 'app list', path: () => '/api/app/' });

    const { port, ownerToken, recorder } = server;
    const get = async (endpoint: (typeof endpoints)[number], slug: string) => {
      let target = endpoint.path(slug);
      if (endpoint.next) {
        const first = await http(port, 'GET', target, ownerToken);
        const cursor = first.headers['x-next-cursor'];
        if (typeof cursor !== 'string') throw new Error(`${endpoint.name}: no X-Next-Cursor`);
        target = `${target}&cursor=${encodeURIComponent(cursor)}`;
      }
      return target;
    };
    const results: ReadResult[] = [];
    for (const endpoint of endpoints) {
      const targets: string[] = [];
      for (let i = 0; i < WARMUP + REQUESTS; i++) targets.push(await get(endpoint, busySlugs[i % busySlugs.length]!));
      const result = await measureRead(
        { port, token: ownerToken, recorder, client },
        { name: endpoint.name, warmUp: targets.slice(0, WARMUP), measured: targets.slice(WARMUP), explained: targets[0]! },
      );
      const { stats, scan } = result;
      results.push(result);
      log(`${endpoint.name}: p50 ${ms(stats.p50)} ms, p95 ${ms(stats.p95)} ms, ${scan.rows} rows read`);
    }

    // The CSV export of the newest calls at its largest, with the process's memory around it.
    const rssBefore = process.memoryUsage().rss;
    const csvSamples: number[] = [];
    let csvBytes = 0;
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      const response = await http(port, 'GET', `/api/app/${busySlugs[i]!}/analytics/invocations.csv?limit=10000`, ownerToken);
      csvSamples.push(performance.now() - started);
      csvBytes = Buffer.byteLength(response.body);
      if (response.status !== 200) throw new Error(`invocations.csv answered ${response.status}`);
    }
    const csv = { ...summary(csvSamples), bytes: csvBytes, rssGrowth: process.memoryUsage().rss - rssBefore };

    log(`paid path, empty and loaded database in ${ROUNDS} alternating rounds`);
    const { empty: emptyPaid, loaded: loadedPaid } = await paidPaths(emptyServer, server);
    log(`empty: p50 ${ms(emptyPaid.p50)} ms, p99 ${ms(emptyPaid.p99)} ms, ${emptyPaid.perSecond.toFixed(0)} calls/s`);
    log(`loaded: p50 ${ms(loadedPaid.p50)} ms, p99 ${ms(loadedPaid.p99)} ms, ${loadedPaid.perSecond.toFixed(0)} calls/s`);
    await client.end();
    await server.close();
    await emptyServer.close();

    // Report.
    const perMillion = (bytes: string) => `${(((Number(bytes) / N) * 1_000_000) / 1024 ** 2).toFixed(0)} MB`;
    const out: string[] = [];
    out.push(
      `Scale benchmark, ${machine.date}: ${N.toLocaleString('en-US')} invocations over ${DAYS} days in ${sizes.partitions} partitions, ${APPS} apps of ${CREATORS} creators (${BUSY} busy, 90 % of calls, all of the bench owner), ${USERS} end users`,
    );
    out.push(
      `Machine: ${machine.cpus}, ${machine.memory} RAM, PostgreSQL ${machine.postgres}, Node ${machine.node}; load average at start ${machine.load}, at end ${os.loadavg()[0]!.toFixed(1)}`,
    );
    out.push(
      args.reuse === undefined
        ? `Load: ${seeded.total.toFixed(0)} s (${seeded.steps.map(([label, s]) => `${label} ${s.toFixed(0)} s`).join(', ')}); ${(N / seeded.steps.find(([label]) => label.endsWith('invocations'))![1] / 1000).toFixed(0)}k invocations/s inserted`
        : `Load: none in this run (--reuse ${loadedName}: a database an earlier run seeded and kept; its log has the load figures)`,
    );
    out.push(
      `Disk: database ${(Number(sizes.database) / 1024 ** 3).toFixed(2)} GiB, invocations with indexes ${(Number(sizes.invocations) / 1024 ** 3).toFixed(2)} GiB = ${perMillion(sizes.invocations)} per million (whole database: ${perMillion(sizes.database)} per million)`,
    );
    out.push('');
    out.push(`Reads through HTTP (${REQUESTS} sequential requests each after ${WARMUP} warm-up; per-app requests over the ${busySlugs.length} busy apps; ms):`);
    out.push('');
    out.push(readsTable('read', results));
    out.push('');
    out.push(
      `invocations.csv?limit=10000 (the largest export; 20 requests): p50 ${ms(csv.p50)} ms, p95 ${ms(csv.p95)} ms, ${(csv.bytes / 1024).toFixed(0)} KiB each; the bench process (server included) grew ${(csv.rssGrowth / 1024 ** 2).toFixed(0)} MB over them`,
    );
    out.push('');
    out.push(
      `Paid path (API key, demo model; on each database ${PAID_CALLS} calls one at a time and ${PAID_CALLS * 2} at 10 connections, in ${ROUNDS} rounds alternating between the two):`,
    );
    out.push('');
    out.push(
      table(
        ['database', 'p50', 'p95', 'p99', 'calls/s at 10'],
        [
          ['empty', ms(emptyPaid.p50), ms(emptyPaid.p95), ms(emptyPaid.p99), emptyPaid.perSecond.toFixed(0)],
          [`${N.toLocaleString('en-US')} invocations`, ms(loadedPaid.p50), ms(loadedPaid.p95), ms(loadedPaid.p99), loadedPaid.perSecond.toFixed(0)],
        ],
      ),
    );
    out.push(`p99 loaded / empty: ${((loadedPaid.p99 / emptyPaid.p99 - 1) * 100).toFixed(1)} % (the issue allows +10 %)`);
    out.push('');
    out.push(`Re-run: ${RERUN}`);
    console.log(out.join('\n'));
  } finally {
    await issuer.close();
    agent.destroy();
    for (const name of [emptyName, ...(args.keep || args.reuse !== undefined ? [] : [loadedName])]) {
      await withClient(SERVER_URL, (admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
