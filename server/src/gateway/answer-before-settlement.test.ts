// A paid call is answered before its settlement commits while fewer than SETTLEMENT_WINDOW_CALLS
// answered calls wait for theirs (billing/paid-call/service.ts, decision 0024). Here the app's database
// holds every settlement statement until the test lets it through (or fails it), so what must
// wait and what must not is seen directly, with no timing assumption: a request that must wait
// cannot finish while the statement is held.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../db/client.ts';
import { createPaidTestContext, type PaidTestContext } from '../test-support/app.ts';
import { interceptedDatabase } from '../test-support/intercepted-database.ts';
import { capturedLog } from '../test-support/log-capture.ts';

/** The settlement batch (billing/paid-call/settlement-sql.ts) is the one statement that starts with this. */
const isSettlement = (sql: string) => sql.trimStart().startsWith('WITH items AS');

/** Holds settlement statements while closed; fails them while failing. */
function settlementGate() {
  let open = true;
  let failing = false;
  let waiters: (() => void)[] = [];
  let held = 0;
  return {
    get held() {
      return held;
    },
    close() {
      open = false;
    },
    open() {
      open = true;
      for (const release of waiters) release();
      waiters = [];
    },
    fail(value: boolean) {
      failing = value;
    },
    wrap(db: Database): Database {
      return interceptedDatabase(db, async (sql) => {
        if (!isSettlement(sql)) return undefined;
        if (!open) {
          held++;
          await new Promise<void>((resolve) => waiters.push(resolve));
          held--;
        }
        if (failing) throw Object.assign(new Error('settlement refused by the test'), { code: 'XX000' });
        return undefined;
      });
    },
  };
}

/** True when the promise is still pending after the event loop has run everything it can for a while. */
async function stillPending(promise: Promise<unknown>, forMs = 150) {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setTimeout(resolve, forMs));
  return !settled;
}

async function setUp(ctx: PaidTestContext, name: string) {
  const owner = await ctx.tokenFor(`${name}-owner`);
  const caller = await ctx.tokenFor(`${name}-caller`);
  const api = (method: 'GET' | 'POST' | 'PATCH', url: string, token: string, payload?: object, headers: Record<string, string> = {}) =>
    ctx.app.inject({ method, url, headers: { authorization: `Bearer ${token}`, ...headers }, ...(payload ? { payload } : {}) });
  const created = await api('POST', '/api/app/', owner, { name: `Answer first ${name}`, type: 'prompt', visibility: 'public', price_cents: 7 });
  expect(created.statusCode).toBe(201);
  const slug = created.json().slug as string;
  await api('PATCH', `/api/app/${slug}/update_status/`, owner, { status: 'live' });
  const key = (await api('POST', '/api/keys/', caller, { name: 'k' })).json().key as string;
  const call = (headers: Record<string, string> = {}) =>
    ctx.app.inject({
      method: 'POST',
      url: `/api/app/${slug}/completion-messages`,
      headers: { authorization: `Bearer ${key}`, ...headers },
      payload: { inputs: { query: 'Hello?' }, response_mode: 'blocking', user: 'u' },
    });
  const credits = async () => (await api('GET', '/api/billing/balance/', caller)).json().credits_cents as number;
  return { api, call, credits, owner, caller, slug };
}

describe('with the default window', () => {
  const gate = settlementGate();
  const { lines: logLines, stream } = capturedLog();
  let ctx: PaidTestContext;
  beforeAll(async () => {
    ctx = await createPaidTestContext({}, { wrapDatabase: gate.wrap, logger: { level: 'error', stream } });
  });
  afterAll(async () => {
    gate.open();
    await ctx?.close();
  });

  it('answers before the settlement commits; this process reads the balance only once it has', async () => {
    const { call, credits } = await setUp(ctx, 'first');
    expect(await credits()).toBe(500);
    gate.close();
    const answered = await call();
    expect(answered.statusCode).toBe(200);
    expect(answered.json().metadata.usage.total_price).toBe('0.0700000');
    // The settlement is written on the next turn of the event loop, after the answer went out.
    await vi.waitFor(() => expect(gate.held).toBe(1), { timeout: 30_000 });

    const balance = credits();
    expect(await stillPending(balance)).toBe(true);
    gate.open();
    expect(await balance).toBe(493);
    const { rows } = await ctx.database.db.query<{ n: number }>("SELECT count(*)::int AS n FROM invocations WHERE id = $1 AND status = 'success'", [
      answered.json().id,
    ]);
    expect(rows[0]!.n).toBe(1);
  });

  it('answers a call with an Idempotency-Key only once its charge is committed', async () => {
    const { call, credits } = await setUp(ctx, 'idempotent');
    gate.close();
    const answered = call({ 'idempotency-key': 'once' });
    await vi.waitFor(() => expect(gate.held).toBe(1), { timeout: 30_000 });
    expect(await stillPending(answered)).toBe(true);
    gate.open();
    expect((await answered).statusCode).toBe(200);
    expect(await credits()).toBe(493);
  });

  it('an answered call whose settlement fails goes free, its price goes back to the caller, and it is logged', async () => {
    const { call, credits } = await setUp(ctx, 'failing');
    gate.close();
    gate.fail(true);
    const answered = await call();
    expect(answered.statusCode).toBe(200);
    gate.open();
    expect(await credits()).toBe(500);
    gate.fail(false);
    expect(logLines.join('')).toContain('settling an answered call failed; it goes free');
    expect(logLines.join('')).toContain(answered.json().id);
    // The lease is whole again: the next calls are charged as usual, and the ledger still balances.
    expect((await call()).statusCode).toBe(200);
    expect(await credits()).toBe(493);
    const { rows } = await ctx.database.db.query<{ total: number }>('SELECT coalesce(sum(amount_cents), 0)::int AS total FROM ledger_entries');
    expect(rows[0]!.total).toBe(0);
  });

  it('shutting down settles every answered call before the leases are released', async () => {
    const { call } = await setUp(ctx, 'shutdown');
    gate.close();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const answered = await call();
      expect(answered.statusCode).toBe(200);
      ids.push(answered.json().id);
    }
    const closing = ctx.app.close();
    expect(await stillPending(closing)).toBe(true);
    gate.open();
    await closing;
    const { rows } = await ctx.database.db.query<{ n: number; held: number; balance: number }>(
      `SELECT (SELECT count(*)::int FROM invocations WHERE id = ANY($1::uuid[]) AND status = 'success') AS n,
              (SELECT coalesce(sum(amount_cents), 0)::int FROM credit_holds) AS held,
              (SELECT a.balance_cents::int FROM ledger_accounts a JOIN users u ON u.id = a.user_id WHERE u.subject = 'shutdown-caller' AND a.kind = 'user_credits') AS balance`,
      [ids],
    );
    expect(rows[0]).toEqual({ n: 3, held: 0, balance: 500 - 3 * 7 });
  });
});

describe('when the window is full', () => {
  const gate = settlementGate();
  let ctx: PaidTestContext;
  beforeAll(async () => {
    ctx = await createPaidTestContext({ SETTLEMENT_WINDOW_CALLS: '1' }, { wrapDatabase: gate.wrap });
  });
  afterAll(async () => {
    gate.open();
    await ctx?.close();
  });

  it('the next answer waits for its own commit', async () => {
    const { call, credits } = await setUp(ctx, 'full');
    gate.close();
    expect((await call()).statusCode).toBe(200);
    const second = call();
    expect(await stillPending(second)).toBe(true);
    gate.open();
    expect((await second).statusCode).toBe(200);
    expect(await credits()).toBe(486);
  });
});

describe('with SETTLEMENT_WINDOW_CALLS=0', () => {
  const gate = settlementGate();
  let ctx: PaidTestContext;
  beforeAll(async () => {
    ctx = await createPaidTestContext({ SETTLEMENT_WINDOW_CALLS: '0' }, { wrapDatabase: gate.wrap });
  });
  afterAll(async () => {
    gate.open();
    await ctx?.close();
  });

  it('every answer waits for its commit, as before', async () => {
    const { call, credits } = await setUp(ctx, 'zero');
    gate.close();
    const first = call();
    expect(await stillPending(first)).toBe(true);
    gate.open();
    expect((await first).statusCode).toBe(200);
    expect(await credits()).toBe(493);
  });
});
