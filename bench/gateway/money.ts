// Tollbooth's side of the money: the bench's app, key and consumer, a snapshot of the balances and
// records a run changes, and the charge check that every 200 answer was charged once and nothing else.
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { TestIssuer } from '../../server/src/test-support/oidc-issuer.ts';
import { PRICE_CENTS } from './options.ts';
import { addTallies, type Tally } from './targets.ts';

export interface Setup {
  slug: string;
  appId: string;
  ownerId: string;
  consumerId: string;
  apiKey: string;
  consumerToken: string;
}

async function api<T>(origin: string, method: string, url: string, token: string, body?: object): Promise<T> {
  const response = await fetch(origin + url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url} → ${response.status}: ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

export async function setUpTollbooth(origin: string, issuer: TestIssuer, db: pg.Client): Promise<Setup> {
  const ownerToken = await issuer.sign({ sub: 'bench-owner', email: 'owner@bench.test', name: 'Bench Owner' });
  const consumerToken = await issuer.sign({ sub: 'bench-consumer', email: 'consumer@bench.test', name: 'Bench Consumer' });
  const app = await api<{ slug: string }>(origin, 'POST', '/api/app/', ownerToken, {
    name: 'Gateway Bench',
    type: 'prompt',
    visibility: 'public',
    price_cents: PRICE_CENTS,
  });
  await api(origin, 'PATCH', `/api/app/${app.slug}/update_status/`, ownerToken, { status: 'live' });
  const key = await api<{ id: string; key: string }>(origin, 'POST', '/api/keys/', consumerToken, { name: 'bench key' });
  const { rows } = await db.query<{ app_id: string; owner_id: string; consumer_id: string }>(
    'SELECT a.id AS app_id, a.owner_id, k.user_id AS consumer_id FROM apps a, api_keys k WHERE a.slug = $1 AND k.id = $2',
    [app.slug, key.id],
  );
  const row = rows[0]!;
  return { slug: app.slug, appId: row.app_id, ownerId: row.owner_id, consumerId: row.consumer_id, apiKey: key.key, consumerToken };
}

export interface MoneySnapshot {
  credits: number;
  held: number;
  earnings: number;
  holds: number;
  successes: number;
  failures: number;
  /** The app's successful calls that a call_charge ledger transaction charged, and those transactions. */
  charged: number;
  charges: number;
  /** call_charge transactions that no call refers to: money moved for no recorded call. */
  orphans: number;
  ledgerSum: number;
  apiCredits: number;
  /** The creator's credits, which pay the model cost a 1-cent price does not cover (decision 0025). */
  ownerCredits: number;
  /** The model_costs ledger account, the creator's running model cost (µ$) and the app's recorded model cost (µ$). */
  modelCosts: number;
  meterMicros: number;
  recordedMicros: number;
}

export async function snapshot(db: pg.Client, origin: string, setup: Setup): Promise<MoneySnapshot> {
  // The API read first: Tollbooth answers a paid call before its settlement commits (decision 0024),
  // and its API reads wait for the calls it answered, so the database read after it sees them all.
  const balance = await api<{ credits_cents: number }>(origin, 'GET', '/api/billing/balance/', setup.consumerToken);
  // A call refers to the call_charge transaction that charged it, shared by the calls of its batch
  // (decision 0062); a checkout measured with --compare from before that has one per call, whose
  // reference is call:<invocation id>.
  const perBatch = (await db.query(`SELECT 1 FROM information_schema.columns WHERE table_name = 'invocations' AND column_name = 'ledger_transaction_id'`)).rows
    .length;
  const charging = perBatch
    ? `(SELECT count(*) FROM invocations i JOIN ledger_transactions t ON t.id = i.ledger_transaction_id AND t.kind = 'call_charge'
        WHERE i.app_id = $3 AND i.status = 'success')::bigint AS charged,
       (SELECT count(*) FROM ledger_transactions t WHERE t.kind = 'call_charge'
        AND NOT EXISTS (SELECT 1 FROM invocations i WHERE i.ledger_transaction_id = t.id))::bigint AS orphans`
    : `(SELECT count(*) FROM invocations i JOIN ledger_transactions t ON t.reference = 'call:' || i.id::text AND t.kind = 'call_charge'
        WHERE i.app_id = $3 AND i.status = 'success')::bigint AS charged,
       (SELECT count(*) FROM ledger_transactions t WHERE t.kind = 'call_charge'
        AND NOT EXISTS (SELECT 1 FROM invocations i WHERE i.id = substring(t.reference FROM 6)::uuid))::bigint AS orphans`;
  const { rows } = await db.query(
    `SELECT
       (SELECT balance_cents FROM ledger_accounts WHERE kind = 'user_credits' AND user_id = $1)::bigint AS credits,
       (SELECT held_cents FROM ledger_accounts WHERE kind = 'user_credits' AND user_id = $1)::bigint AS held,
       coalesce((SELECT balance_cents FROM ledger_accounts WHERE kind = 'creator_earnings' AND user_id = $2), 0)::bigint AS earnings,
       (SELECT count(*) FROM credit_holds)::bigint AS holds,
       (SELECT count(*) FROM invocations WHERE app_id = $3 AND status = 'success')::bigint AS successes,
       (SELECT count(*) FROM invocations WHERE app_id = $3 AND status = 'error')::bigint AS failures,
       (SELECT count(*) FROM ledger_transactions WHERE kind = 'call_charge')::bigint AS charges,
       ${charging},
       (SELECT coalesce(sum(amount_cents), 0) FROM ledger_entries)::bigint AS ledger_sum,
       coalesce((SELECT balance_cents FROM ledger_accounts WHERE kind = 'user_credits' AND user_id = $2), 0)::bigint AS owner_credits,
       (SELECT balance_cents FROM ledger_accounts WHERE kind = 'model_costs')::bigint AS model_costs,
       coalesce((SELECT micros FROM model_cost_meters WHERE user_id = $2), 0)::bigint AS meter_micros,
       (SELECT coalesce(sum(model_cost_micros), 0) FROM invocations WHERE app_id = $3)::bigint AS recorded_micros`,
    [setup.consumerId, setup.ownerId, setup.appId],
  );
  const row = rows[0] as Record<string, string>;
  return {
    credits: Number(row.credits),
    held: Number(row.held),
    earnings: Number(row.earnings),
    holds: Number(row.holds),
    successes: Number(row.successes),
    failures: Number(row.failures),
    charged: Number(row.charged),
    charges: Number(row.charges),
    orphans: Number(row.orphans),
    ledgerSum: Number(row.ledger_sum),
    apiCredits: balance.credits_cents,
    ownerCredits: Number(row.owner_credits),
    modelCosts: Number(row.model_costs),
    meterMicros: Number(row.meter_micros),
    recordedMicros: Number(row.recorded_micros),
  };
}

export interface ChargeCheck {
  ok: boolean;
  lines: string[];
}

/** A side's charge check in a run's report: passed or FAILED, then its lines, indented. */
export const chargeCheckReport = (name: string, check: ChargeCheck): string[] => [
  `Charge check of ${name} (${check.ok ? 'passed' : 'FAILED'}):`,
  '',
  ...check.lines.map((line) => `    ${line}`),
  '',
];

/**
 * Waits (up to 10 s) until no credit hold is left: a process keeps its caller's credit lease until it
 * has been idle for a second, so right after a phase that ends with Tollbooth's calls one is still
 * held. The charge check still fails if one stays.
 */
export async function settled(db: pg.Client) {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const { rows } = await db.query<{ holds: string }>('SELECT count(*) AS holds FROM credit_holds');
    if (Number(rows[0]!.holds) === 0) return;
    await sleep(200);
  }
}

export function checkCharges(before: MoneySnapshot, after: MoneySnapshot, byPath: [string, Tally][]): ChargeCheck {
  const tally = addTallies(byPath.map(([, t]) => t));
  const successes = tally.ok;
  const expected = successes * PRICE_CENTS;
  const paths = byPath
    .filter(([, t]) => t.ok + t.notOk + t.failed + t.incomplete > 0)
    .map(([label, t]) => `${label} ${t.ok}`)
    .join(', ');
  const checks: [string, boolean][] = [
    [
      `HTTP 200 answers from Tollbooth: ${successes}${paths ? ` (${paths})` : ''}; non-200: ${tally.notOk}, transport failures: ${tally.failed}, ` +
        `streams cut short or ending in an error: ${tally.incomplete}`,
      tally.failed === 0 && tally.incomplete === 0,
    ],
    [
      `consumer credits: ${before.credits} → ${after.credits} cents, delta ${after.credits - before.credits} = -(${successes} × ${PRICE_CENTS})`,
      before.credits - after.credits === expected,
    ],
    [`GET /api/billing/balance/ credits_cents delta ${after.apiCredits - before.apiCredits}`, before.apiCredits - after.apiCredits === expected],
    [
      `model cost recorded: ${after.recordedMicros - before.recordedMicros} µ$ (the creator's meter: ${after.meterMicros - before.meterMicros} µ$), ` +
        `posted: ${after.modelCosts - before.modelCosts} cents = the meter's cents rounded up`,
      after.recordedMicros - before.recordedMicros === after.meterMicros - before.meterMicros &&
        after.modelCosts - before.modelCosts === Math.ceil(after.meterMicros / 10_000) - Math.ceil(before.meterMicros / 10_000),
    ],
    [
      `creator net: earnings delta ${after.earnings - before.earnings} + credits delta ${after.ownerCredits - before.ownerCredits} = ` +
        `${expected} paid − ${after.modelCosts - before.modelCosts} model cost`,
      after.earnings - before.earnings + (after.ownerCredits - before.ownerCredits) === expected - (after.modelCosts - before.modelCosts),
    ],
    [`successful invocations recorded: ${after.successes - before.successes}`, after.successes - before.successes === successes],
    [`failed invocations recorded: ${after.failures - before.failures} (non-200 answers: ${tally.notOk})`, after.failures - before.failures === tally.notOk],
    [
      `calls charged by a call_charge ledger transaction: ${after.charged - before.charged} (in ${after.charges - before.charges} transactions); ` +
        `transactions no call refers to: ${after.orphans}`,
      after.charged - before.charged === successes && after.orphans === 0,
    ],
    [`credit holds left: ${after.holds}, held cents: ${after.held}`, after.holds === 0 && after.held === 0],
    [`sum of all ledger entries: ${after.ledgerSum}`, after.ledgerSum === 0],
  ];
  return { ok: checks.every(([, ok]) => ok), lines: checks.map(([text, ok]) => `${ok ? 'ok  ' : 'FAIL'} ${text}`) };
}
