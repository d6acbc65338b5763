// The settlement benchmark (issue 27, the PostgreSQL part). It writes paid calls through the real
// settlement batcher (server/src/billing/paid-call/settlement-batcher.ts) into a PostgreSQL database of its own, in
// batches of fixed sizes, and reads what PostgreSQL spent on them: the backend's CPU time from
// /proc/<pid>/stat (so the server must run on this machine) and the cluster's WAL from pg_stat_wal.
// A call is the gateway bench's: a 1-cent price from the caller's hold, a model cost of 330 µ$, an
// API key, no chat turn. The gateway's own batches are about 30 calls at 50 connections. Nothing else
// runs against the database; the figures move with the machine's speed, so compare runs made
// together (--migrations of another checkout measures the same statement on that schema), or in
// one run: --compare <checkout> writes every other batch with that checkout's settlement statement
// (its server/src/billing/paid-call/settlement-batcher.ts, or billing/settlement.ts before issue 56) on the same connection and schema, so both see the same
// machine speed.
//
//   node --import tsx bench/settlement/run.ts [--batches 1,10,33,100] [--calls 30000] [--rounds 3] [--migrations <dir> | --compare <checkout>]
//   env: DATABASE_URL (a PostgreSQL server URL, default postgres://postgres@127.0.0.1:5432/postgres)
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { findOrCreateUserAccount, findSystemAccount, postLedgerTransaction } from '../../server/src/billing/ledger.ts';
import { type CreditHold, reserveCharge } from '../../server/src/billing/paid-call/holds.ts';
import { createSettlementBatcher, type SettlementBatcher } from '../../server/src/billing/paid-call/settlement-batcher.ts';
import type { Settlement } from '../../server/src/billing/paid-call/settlement-sql.ts';
import { openPostgres } from '../../server/src/db/client.ts';
import { migrate } from '../../server/src/db/migrate.ts';

const { values: args } = parseArgs({
  options: {
    batches: { type: 'string', default: '1,10,33,100' },
    calls: { type: 'string', default: '30000' },
    rounds: { type: 'string', default: '3' },
    migrations: { type: 'string' },
    compare: { type: 'string' },
  },
});
const batches = args.batches.split(',').map(Number);
const calls = Number(args.calls);
const rounds = Number(args.rounds);
if (batches.some((size) => !Number.isInteger(size) || size < 1 || size > 256) || !(calls >= 100) || !(rounds >= 1)) {
  throw new Error('--batches takes sizes from 1 to 256 (the batcher writes at most 256), --calls at least 100, --rounds at least 1');
}
const migrations = args.migrations ? path.resolve(args.migrations) : undefined;
if (migrations && args.compare) throw new Error('--compare measures two statements on one schema: it takes no --migrations');
const compared: { createSettlementBatcher: typeof createSettlementBatcher } | null = args.compare
  ? await import(
      pathToFileURL(
        path.resolve(
          args.compare,
          // The batcher's home since issue 56; a checkout from before it has it in billing/settlement.ts.
          existsSync(path.resolve(args.compare, 'server/src/billing/paid-call/settlement-batcher.ts'))
            ? 'server/src/billing/paid-call/settlement-batcher.ts'
            : 'server/src/billing/settlement.ts',
        ),
      ).href
    )
  : null;

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
  // WAL records come from pg_stat_wal, which a backend updates at most once a second: they are read
  // over a whole batch size, so only without --compare. Bytes come from the insert position, exact per batch.
  const walRecords = async () => Number((await admin.query<{ records: string }>('SELECT wal_records AS records FROM pg_stat_wal')).rows[0]!.records);
  const walPosition = async () => Number((await admin.query<{ at: string }>("SELECT pg_current_wal_insert_lsn() - '0/0' AS at")).rows[0]!.at);
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

  // The statements measured: this checkout's, and with --compare the other's, batch about.
  const statements = [{ label: 'this checkout', batcher }, ...(compared ? [{ label: args.compare!, batcher: compared.createSettlementBatcher(db) }] : [])];
  const rows: string[] = [];
  for (const size of batches) {
    // Each batch is one statement: the batcher writes the calls queued in one turn together.
    let hold = await holdFor(10_000);
    let left = hold.amountCents;
    const settleBatch = async (writer: SettlementBatcher) => {
      if (left < size) {
        hold = await holdFor(10_000);
        left = hold.amountCents;
      }
      left -= size;
      const batch = Array.from({ length: size }, () => call(hold));
      await Promise.all(batch.map((settlement) => writer.settle(settlement)));
    };
    for (const { batcher: writer } of statements) for (let warm = 0; warm < Math.max(5, 300 / size); warm++) await settleBatch(writer);
    const measured = statements.map(() => ({ perCall: [] as number[], bytes: 0 }));
    const recordsBefore = await walRecords();
    const batchesPerRound = Math.ceil(calls / size);
    for (let round = 0; round < rounds; round++) {
      const cpu = statements.map(() => 0);
      for (let i = 0; i < batchesPerRound * statements.length; i++) {
        const which = i % statements.length;
        const at = await walPosition();
        const before = backendCpuMs();
        await settleBatch(statements[which]!.batcher);
        cpu[which]! += backendCpuMs() - before;
        measured[which]!.bytes += (await walPosition()) - at;
      }
      for (const [which, spent] of cpu.entries()) measured[which]!.perCall.push((spent / (batchesPerRound * size)) * 1000);
    }
    const records = (await walRecords()) - recordsBefore;
    const settled = rounds * batchesPerRound * size;
    for (const [which, { perCall, bytes }] of measured.entries()) {
      const sorted = [...perCall].sort((x, y) => x - y);
      const median = sorted[Math.floor(sorted.length / 2)]!;
      // The compared statement's row says how this checkout's did against it in each round.
      const ratios = which === 0 ? '' : perCall.map((value, round) => (measured[0]!.perCall[round]! / value).toFixed(2)).join(', ');
      const cells = [
        String(size),
        ...(compared ? [statements[which]!.label] : []),
        settled.toLocaleString('en-US'),
        `${median.toFixed(0)} (${sorted[0]!.toFixed(0)}–${sorted.at(-1)!.toFixed(0)})`,
        compared ? '–' : (records / settled).toFixed(1),
        Math.round(bytes / settled).toLocaleString('en-US'),
        ...(compared ? [ratios] : []),
      ];
      rows.push(`| ${cells.join(' | ')} |`);
      console.log(
        `[batch ${size}${compared ? `, ${statements[which]!.label}` : ''}] ${perCall.map((value) => value.toFixed(0)).join(', ')} µs of backend CPU per call`,
      );
    }
  }
  const { rows: version } = await admin.query<{ v: string }>("SELECT split_part(version(), ' on ', 1) AS v");
  console.log(
    [
      '',
      `- ${version[0]!.v} on ${url.host}; migrations ${migrations ?? 'of this checkout'}; ${rounds} rounds of ${calls.toLocaleString('en-US')} calls per batch size${compared ? ` and statement, its batches taking turns with ${args.compare}'s` : ''}`,
      '',
      compared
        ? '| calls per statement | statement of | calls settled | backend CPU µs per call: median (range over rounds) | WAL records per call | WAL bytes per call | this checkout / compared, by round |'
        : '| calls per statement | calls settled | backend CPU µs per call: median (range over rounds) | WAL records per call | WAL bytes per call |',
      compared ? '|---:|---|---:|---:|---:|---:|---|' : '|---:|---:|---:|---:|---:|',
      ...rows,
      '',
      `Re-run: node --import tsx bench/settlement/run.ts --batches ${batches.join(',')} --calls ${calls} --rounds ${rounds}${args.migrations ? ` --migrations ${args.migrations}` : ''}${args.compare ? ` --compare ${args.compare}` : ''}`,
    ].join('\n'),
  );
} finally {
  await db.close();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}
