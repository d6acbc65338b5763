// Who covers a call's model cost beyond its price (issue 22 item 4, decision 0037): the creator's
// earnings first, then their credits; and the model cost of every answer nobody pays for (a failed
// output schema, a stream cut by the provider or without usage, a caller gone once the model was
// asked) is posted to the creator, the caller uncharged, the invocation recording it.
import { once } from 'node:events';
import { connect } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { listenOnLoopback, paidTestContextForFile } from '../../test-support/app.ts';
import { expectLedgerBalanced, grantFromOutside } from '../../test-support/ledger.ts';
import { liveModelApp, newUserWithKey } from '../../test-support/priced-apps.ts';

const ctx = await paidTestContextForFile({ SIGNUP_CREDITS_CENTS: '0', RATE_LIMIT_PER_MINUTE: '100000', PROVIDER_TIMEOUT_MS: '20000' });
const port = Number(new URL(await listenOnLoopback(ctx.app)).port);
const { model: upstream, sql } = ctx;

const newUser = () => newUserWithKey(ctx, 'cover-user');

const grant = (userId: string, kind: 'user_credits' | 'creator_earnings', cents: number) => grantFromOutside(ctx.database.db, userId, kind, cents);

async function accounts(userId: string) {
  const rows = await sql<{ kind: string; balance: number; held: number }>(
    "SELECT kind, balance_cents AS balance, held_cents AS held FROM ledger_accounts WHERE user_id = $1 AND kind IN ('user_credits', 'creator_earnings')",
    [userId],
  );
  const of = (kind: string) => rows.find((row) => row.kind === kind) ?? { balance: 0, held: 0 };
  return { credits: of('user_credits').balance, earnings: of('creator_earnings').balance, earningsHeld: of('creator_earnings').held };
}

const systemBalance = async (kind: 'model_costs') =>
  Number((await sql<{ b: number }>('SELECT balance_cents AS b FROM ledger_accounts WHERE kind = $1 AND user_id IS NULL', [kind]))[0]!.b);
const meter = async (userId: string) => Number((await sql<{ m: number }>('SELECT micros AS m FROM model_cost_meters WHERE user_id = $1', [userId]))[0]?.m ?? 0);

const liveApp = (token: string, overrides: object = {}, config: object = {}) =>
  liveModelApp(ctx, token, { name: `Cover App ${Math.random()}`, price_cents: 1, ...overrides }, config);

const call = (slug: string, key: string, responseMode: 'blocking' | 'streaming' = 'blocking', query = 'Hello?') =>
  ctx.api('POST', `/api/app/${slug}/completion-messages`, key, { inputs: { query }, response_mode: responseMode, user: 'someone' });

/** Waits until no hold of the user's earnings is left (leases are released once idle). */
async function earningsReleased(userId: string) {
  for (let i = 0; i < 100; i++) {
    if ((await accounts(userId)).earningsHeld === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('earnings still held');
}

describe("the creator's earnings cover the model cost their price does not, before their credits", () => {
  it('a creator with earnings and credits: the earnings pay, the credits are untouched; with no earnings the credits pay', async () => {
    const caller = await newUser();
    await grant(caller.id, 'user_credits', 1_000);
    // 50 × $10 + 1,000 × $30 per million tokens = 30,500 µ$ a call, above its 1-cent price.
    upstream.setBehaviour({ text: 'long answer', usage: { inputTokens: 50, outputTokens: 1000 } });

    const rich = await newUser();
    await grant(rich.id, 'creator_earnings', 10_000);
    await grant(rich.id, 'user_credits', 500);
    const richApp = await liveApp(rich.token, {}, { max_tokens: 1000 });
    for (let i = 0; i < 10; i++) expect((await call(richApp, caller.key)).statusCode).toBe(200);
    const posted = Math.ceil((10 * 30_500) / 10_000);
    expect(await meter(rich.id)).toBe(10 * 30_500);
    await earningsReleased(rich.id);
    expect(await accounts(rich.id)).toEqual({ credits: 500, earnings: 10_000 + 10 - posted, earningsHeld: 0 });

    const poor = await newUser();
    await grant(poor.id, 'user_credits', 500);
    const poorApp = await liveApp(poor.token, {}, { max_tokens: 1000 });
    for (let i = 0; i < 10; i++) expect((await call(poorApp, caller.key)).statusCode).toBe(200);
    // The negative net comes out of the credits; the earnings end at 0.
    expect(await accounts(poor.id)).toEqual({ credits: 500 + 10 - posted, earnings: 0, earningsHeld: 0 });
    expect((await accounts(caller.id)).credits).toBe(1_000 - 20);
    await expectLedgerBalanced(ctx.database.db);
  });

  it('with earnings and credits for exactly 3 worst-case model costs, 12 concurrent calls give 3 answers; the owner’s own call does not touch earnings', async () => {
    const creator = await newUser();
    const caller = await newUser();
    await grant(caller.id, 'user_credits', 1_000);
    const slug = await liveApp(creator.token, {}, { max_tokens: 1000 });
    // Each call reserves its whole worst case (about 3.1 cents: 4), whatever its price, since any call
    // can go unpaid (issue 60 item 8): 2 calls' worth of earnings, 1 of credits.
    await grant(creator.id, 'creator_earnings', 8);
    await grant(creator.id, 'user_credits', 4);
    upstream.setBehaviour({ text: 'long', delayMs: 20, usage: { inputTokens: 50, outputTokens: 1000 } });
    const upstreamBefore = upstream.requests.length;
    const responses = await Promise.all(Array.from({ length: 12 }, () => call(slug, caller.key)));
    // A call that settled gives back what its price covered of its reservation (1 cent), so a
    // late call may find room for a fourth.
    const answered = responses.filter((response) => response.statusCode === 200).length;
    expect(answered).toBeGreaterThanOrEqual(3);
    expect(answered).toBeLessThanOrEqual(4);
    for (const response of responses.filter((r) => r.statusCode !== 200)) {
      expect(response.statusCode).toBe(503);
      expect(response.json().code).toBe('model_cost_not_covered');
      expect(response.json().message).toMatch(/no credit or earnings left/);
    }
    expect(upstream.requests.length - upstreamBefore).toBe(answered);
    await earningsReleased(creator.id);
    const after = await accounts(creator.id);
    expect(after.credits).toBeGreaterThanOrEqual(0);
    expect(after.earnings).toBeGreaterThanOrEqual(0);
    expect((await accounts(caller.id)).credits).toBe(1_000 - answered);

    // The owner's own calls pay from credits only (issue 22 item 3): earnings alone do not let them through.
    const owner = await newUser();
    await grant(owner.id, 'creator_earnings', 10_000);
    const own = await liveApp(owner.token, { visibility: 'private' }, { max_tokens: 1000 });
    const ownCall = await call(own, owner.key);
    expect(ownCall.statusCode).toBe(402);
    expect(ownCall.json().code).toBe('insufficient_credits');
    expect((await accounts(owner.id)).earnings).toBe(10_000);
    await expectLedgerBalanced(ctx.database.db);
  });
});

const SCHEMA = {
  type: 'object',
  properties: { sentiment: { type: 'string', enum: ['positive', 'negative'] } },
  required: ['sentiment'],
  additionalProperties: false,
};

interface Recorded {
  status: string;
  error_type: string;
  outcome: string;
  price_cents: number;
  model_cost_micros: number;
}
const lastInvocation = async (slug: string) =>
  (
    await sql<Recorded>(
      `SELECT i.status, i.error_type, i.outcome, i.price_cents, i.model_cost_micros FROM invocations i JOIN apps a ON a.id = i.app_id
       WHERE a.slug = $1 ORDER BY i.created_at DESC LIMIT 1`,
      [slug],
    )
  )[0]!;

/** What an unpaid call moved: the creator's meter grew by the invocation's model cost, the cents posted came out of the creator. */
async function expectCreatorBore(
  creatorId: string,
  before: { meter: number; modelCosts: number; creator: { credits: number; earnings: number } },
  micros: number,
) {
  expect(await meter(creatorId)).toBe(before.meter + micros);
  const posted = Math.ceil((before.meter + micros) / 10_000) - Math.ceil(before.meter / 10_000);
  expect((await systemBalance('model_costs')) - before.modelCosts).toBe(posted);
  const after = await accounts(creatorId);
  expect(after.credits + after.earnings).toBe(before.creator.credits + before.creator.earnings - posted);
}

describe('the model cost of an answer nobody pays for is posted to the creator, and the caller is not charged', () => {
  let creator: Awaited<ReturnType<typeof newUser>>;
  let caller: Awaited<ReturnType<typeof newUser>>;
  let schemaApp: string;
  let cheapSchemaApp: string;
  let plainApp: string;
  beforeAll(async () => {
    creator = await newUser();
    caller = await newUser();
    await grant(caller.id, 'user_credits', 10_000);
    await grant(creator.id, 'creator_earnings', 10_000);
    // Priced above its worst case: no reservation, the cost comes out of the earnings at settlement.
    schemaApp = await liveApp(creator.token, { price_cents: 50 }, { max_tokens: 1000, output_schema: SCHEMA });
    // Priced below its worst case: the cost comes out of the reservation on the earnings.
    cheapSchemaApp = await liveApp(creator.token, { price_cents: 1 }, { max_tokens: 1000, output_schema: SCHEMA });
    plainApp = await liveApp(creator.token, { price_cents: 50 }, { max_tokens: 100 });
  });
  const snapshot = async () => ({ meter: await meter(creator.id), modelCosts: await systemBalance('model_costs'), creator: await accounts(creator.id) });

  for (const mode of ['blocking', 'streaming'] as const) {
    for (const which of ['priced above its worst case', 'priced below its worst case'] as const) {
      it(`an answer that fails the output schema (${mode}, ${which})`, async () => {
        const slug = which === 'priced above its worst case' ? schemaApp : cheapSchemaApp;
        upstream.setBehaviour({ text: 'Positive, I think.', usage: { inputTokens: 100, outputTokens: 900 } });
        const before = await snapshot();
        const callerBefore = (await accounts(caller.id)).credits;
        const response = await call(slug, caller.key, mode);
        if (mode === 'blocking') expect(response.statusCode).toBe(502);
        else expect(response.body).toContain('provider_error');
        expect(response.body).not.toContain('Positive, I think.');
        expect((await accounts(caller.id)).credits).toBe(callerBefore);
        // 100 × $10 + 900 × $30 per million = 28,000 µ$.
        expect(await lastInvocation(slug)).toEqual({
          status: 'error',
          error_type: 'output_schema_mismatch',
          outcome: 'failed',
          price_cents: 0,
          model_cost_micros: 28_000,
        });
        await expectCreatorBore(creator.id, before, 28_000);
        await earningsReleased(creator.id);
        await expectLedgerBalanced(ctx.database.db);
      });
    }
  }

  it('a stream the provider cut after part of the answer: counted from the prompt and the text', async () => {
    // Chunks apart in time, so the first two reach the gateway (and the caller) before the cut.
    for (const behaviour of [
      { cutStreamAfterChunks: 2, chunkDelayMs: 100 },
      { cutStreamAfterChunks: 1, chunkDelayMs: 100 },
    ]) {
      upstream.setBehaviour({ text: 'one two three four five six seven eight', ...behaviour });
      const before = await snapshot();
      const callerBefore = (await accounts(caller.id)).credits;
      const response = await call(plainApp, caller.key, 'streaming');
      expect(response.body).toContain('one two');
      expect(response.body).toContain('provider_error');
      expect((await accounts(caller.id)).credits).toBe(callerBefore);
      const recorded = await lastInvocation(plainApp);
      expect(recorded).toMatchObject({ status: 'error', error_type: 'provider_error', outcome: 'failed', price_cents: 0 });
      expect(recorded.model_cost_micros).toBeGreaterThan(0);
      await expectCreatorBore(creator.id, before, recorded.model_cost_micros);
    }
    await expectLedgerBalanced(ctx.database.db);
  });

  /** Sends a call on a raw socket and hangs up once the upstream has received it (the model was asked). */
  async function hangUpOnceAsked(body: object, marker: string) {
    const json = JSON.stringify(body);
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.on('error', () => undefined);
    const head = `POST /api/app/${plainApp}/completion-messages HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${caller.key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n`;
    socket.write(head + json);
    for (let i = 0; i < 200 && !upstream.requests.some((request) => request.rawBody.includes(marker)); i++) await new Promise((r) => setTimeout(r, 25));
    socket.destroy();
    const sent = upstream.requests.find((request) => request.rawBody.includes(marker))!;
    await sent.closed;
  }

  for (const mode of ['blocking', 'streaming'] as const) {
    it(`a caller who hung up once the model was asked, before any answer (${mode}): the prompt is the creator's, the call is free`, async () => {
      // The model takes its time: the caller is gone before anything could be sent.
      upstream.setBehaviour({ text: 'too late', delayMs: 2_000 });
      const before = await snapshot();
      const callerBefore = (await accounts(caller.id)).credits;
      const invocationsBefore = Number((await sql<{ n: number }>('SELECT count(*)::int AS n FROM invocations'))[0]!.n);
      const marker = `hang-up-${mode}-${Math.random()}`;
      await hangUpOnceAsked({ inputs: { query: marker }, response_mode: mode, user: 'gone' }, marker);
      let recorded: Recorded | undefined;
      for (let i = 0; i < 200 && !recorded; i++) {
        const count = Number((await sql<{ n: number }>('SELECT count(*)::int AS n FROM invocations'))[0]!.n);
        if (count > invocationsBefore) recorded = await lastInvocation(plainApp);
        else await new Promise((r) => setTimeout(r, 25));
      }
      expect(recorded).toMatchObject({ status: 'error', error_type: 'client_disconnected', outcome: 'rejected', price_cents: 0 });
      expect(recorded!.model_cost_micros).toBeGreaterThan(0);
      expect((await accounts(caller.id)).credits).toBe(callerBefore);
      await expectCreatorBore(creator.id, before, recorded!.model_cost_micros);
      await expectLedgerBalanced(ctx.database.db);
    });
  }
});

describe('no creator debt at the operator’s cost (issue 60 item 8)', () => {
  it('200 schema-failing calls from 4 keys to an app priced above its worst case: the creator pays every answer until their balance is used, then callers get 503, never a negative balance', async () => {
    const creator = await newUser();
    // Enough earnings for a handful of answers at 2.8 cents each, and no credits.
    await grant(creator.id, 'creator_earnings', 20);
    const callers = await Promise.all(Array.from({ length: 4 }, () => newUser()));
    for (const one of callers) await grant(one.id, 'user_credits', 10_000);
    const slug = await liveApp(creator.token, { price_cents: 50 }, { max_tokens: 1000, output_schema: SCHEMA });
    upstream.setBehaviour({ text: 'Not JSON at all.', usage: { inputTokens: 100, outputTokens: 900 } });
    const modelCostsBefore = await systemBalance('model_costs');
    const asked = upstream.requests.length;
    const statuses: Record<number, number> = {};
    for (let round = 0; round < 50; round++) {
      const responses = await Promise.all(callers.map((one) => call(slug, one.key)));
      for (const response of responses) {
        statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
        if (response.statusCode === 503) expect(response.json()).toMatchObject({ code: 'model_cost_not_covered' });
        else expect(response.json()).toMatchObject({ code: 'provider_error' });
      }
    }
    await earningsReleased(creator.id);
    const answered = upstream.requests.length - asked;
    expect(statuses[502]).toBe(answered);
    expect(statuses[503]).toBe(200 - answered);
    expect(answered).toBeGreaterThan(0);
    // No caller paid for an answer it never got.
    for (const one of callers) expect((await accounts(one.id)).credits).toBe(10_000);
    // The creator paid every answer's model cost, and never went below zero: the operator lost nothing.
    const after = await accounts(creator.id);
    expect(after.earnings).toBeGreaterThanOrEqual(0);
    expect(after.credits).toBeGreaterThanOrEqual(0);
    const posted = (await systemBalance('model_costs')) - modelCostsBefore;
    expect(posted).toBe(20 - after.earnings - after.credits);
    expect(posted).toBe(Math.ceil((answered * 28_000) / 10_000) - 0);
    await expectLedgerBalanced(ctx.database.db);
  }, 120_000);
});
