// The settlement benchmark (issue 27, the PostgreSQL part). It writes paid calls through the real
// settlement batcher (server/src/billing/settlement.ts) into a PostgreSQL database of its own, in
// batches of fixed sizes, and reads what PostgreSQL spent on them: the backend's CPU time from
// /proc/<pid>/stat (so the server must run on this machine) and the cluster's WAL from pg_stat_wal.
// A call is the gateway bench's: a 1-cent price from the caller's hold, a model cost of 330 µ$, an
// API key, no chat turn. The gateway's own batches are about 30 calls at 50 connections. Nothing else
// runs against the database; the figures move with the machine's speed, so compare runs made
// together (--migrations of another checkout measures the same statement on that schema).
//
//   node --import tsx bench/settlement/run.ts [--batches 1,10,33,100] [--calls 30000] [--rounds 3] [--migrations <dir>]
//   env: DATABASE_URL (a PostgreSQL server URL, default postgres://postgres@127.0.0.1:5432/postgres)
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { type CreditHold, reserveCharge } from '../../server/src/billing/charges.ts';
import { findOrCreateUserAccount, findSystemAccount, postLedgerTransaction } from '../../server/src/billing/ledger.ts';
import { createSettlementBatcher, type Settlement } from '../../server/src/billing/settlement.ts';
import { openPostgres } from '../../server/src/db/client.ts';
import { migrate } from '../../server/src/db/migrate.ts';

const { values: args } = parseArgs({
  options: {
    batches: { type: 'string', default: '1,10,33,100' },
    calls: { type: 'string', default: '30000' },
    rounds: { type: 'string', default: '3' },
    migrations: { type: 'string' },
  },
});
const batches = args.batches.split(',').map(Number);
const calls = Number(args.calls);
const rounds = Number(args.rounds);
if (batches.some((size) => !Number.isInteger(size) || size < 1 || size > 256) || !(calls >= 100) || !(rounds >= 1)) {
  throw new Error('--batches takes sizes from 1 to 256 (the batcher writes at most 256), --calls at least 100, --rounds at least 1');
}
const migrations = args.migrations ? path.resolve(args.migrations) : undefined;

const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const name = `tb_settle_${randomBytes(5).toString('hex')}`;
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);
const url = new URL(serverUrl);
url.pathname = `/${name}`;
// One connection: every statement runs on the backend whose CPU is read.
const db = await openPostgres(url.toString(), 1);

try {
  await migrate(db, migrations);
  const one = async (sql: string, params: unknown[] = []) => (await db.query<{ id: string }>(sql, params)).rows[0]!.id;
  const owner = await one("INSERT INTO users (issuer, subject) VALUES ('https://bench.test', 'owner') RETURNING id");
  const caller = await one("INSERT INTO users (issuer, subject) VALUES ('https://bench.test', 'caller') RETURNING id");
  const app = await one("INSERT INTO apps (owner_id, name, slug, type) VALUES ($1, 'Bench', 'bench', 'prompt') RETURNING id", [owner]);
  const key = await one("INSERT INTO api_keys (user_id, name, prefix, key_hash) VALUES ($1, 'bench', 'tb_benchxx', repeat('a', 64)) RETURNING id", [caller]);
  await db.transaction(async (tx) => {
    await findOrCreateUserAccount(tx, 'creator_earnings', owner);
    const credits = await findOrCreateUserAccount(tx, 'user_credits', caller);
    const funding = await findSystemAccount(tx, 'outside_funding');
    await postLedgerTransaction(tx, {
      kind: 'bench_credits',
      entries: [
        { accountId: funding, amountCents: -1_000_000_000 },
        { accountId: credits, amountCents: 1_000_000_000 },
      ],
    });
  });

  const pid = (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  const ticksPerMs = 100 / 1000; // USER_HZ
  const backendCpuMs = () => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / ticksPerMs;
  };
  const wal = async () => {
    const row = (await admin.query<{ records: string; bytes: string }>('SELECT wal_records AS records, wal_bytes AS bytes FROM pg_stat_wal')).rows[0]!;
    return { records: Number(row.records), bytes: Number(row.bytes) };
  };
  const batcher = createSettlementBatcher(db);
  const holdFor = (cents: number) => reserveCharge(db, { userId: caller, amountCents: cents, apiKeyId: key, monthlySpendLimitCents: null });
  const call = (hold: CreditHold): Settlement => ({
    invocationId: randomUUID(),
    appId: app,
    ownerId: owner,
    callerId: caller,
    apiKeyId: key,
    endUser: '',
    mode: 'completion',
    latencyMs: 3,
    inputTokens: 11,
    outputTokens: 22,
    priceCents: 1,
    model: 'gpt-4o-mini',
    provider: 'openai',
    modelCostMicros: 330,
    createdAt: new Date(),
    ledgerTransactionId: randomUUID(),
    description: 'Bench call',
    charge: { hold, feeCents: 0 },
    cost: null,
    turn: null,
  });

  const rows: string[] = [];
  for (const size of batches) {
    // Each batch is one statement: the batcher writes the calls queued in one turn together.
    let hold = await holdFor(10_000);
    let left = hold.amountCents;
    const settleBatch = async () => {
      if (left < size) {
        hold = await holdFor(10_000);
        left = hold.amountCents;
      }
      left -= size;
      const batch = Array.from({ length: size }, () => call(hold));
      await Promise.all(batch.map((settlement) => batcher.settle(settlement)));
    };
    for (let warm = 0; warm < Math.max(5, 300 / size); warm++) await settleBatch();
    const perCall: number[] = [];
    const walBefore = await wal();
    const batchesPerRound = Math.ceil(calls / size);
    for (let round = 0; round < rounds; round++) {
      let cpu = 0;
      for (let i = 0; i < batchesPerRound; i++) {
        const before = backendCpuMs();
        await settleBatch();
        cpu += backendCpuMs() - before;
      }
      perCall.push((cpu / (batchesPerRound * size)) * 1000);
    }
    const walAfter = await wal();
    const settled = rounds * batchesPerRound * size;
    const sorted = [...perCall].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    rows.push(
      `| ${size} | ${settled.toLocaleString('en-US')} | ${median.toFixed(0)} (${sorted[0]!.toFixed(0)}–${sorted.at(-1)!.toFixed(0)}) | ${((walAfter.records - walBefore.records) / settled).toFixed(1)} | ${Math.round((walAfter.bytes - walBefore.bytes) / settled).toLocaleString('en-US')} |`,
    );
    console.log(`[batch ${size}] ${perCall.map((value) => value.toFixed(0)).join(', ')} µs of backend CPU per call`);
  }
  const { rows: version } = await admin.query<{ v: string }>("SELECT split_part(version(), ' on ', 1) AS v");
  console.log(
    [
      '',
      `- ${version[0]!.v} on ${url.host}; migrations ${migrations ?? 'of this checkout'}; ${rounds} rounds of ${calls.toLocaleString('en-US')} calls per batch size`,
      '',
      '| calls per statement | calls settled | backend CPU µs per call: median (range over rounds) | WAL records per call | WAL bytes per call |',
      '|---:|---:|---:|---:|---:|',
      ...rows,
      '',
      `Re-run: node --import tsx bench/settlement/run.ts --batches ${batches.join(',')} --calls ${calls} --rounds ${rounds}${args.migrations ? ` --migrations ${args.migrations}` : ''}`,
    ].join('\n'),
  );
} finally {
  await db.close();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}
