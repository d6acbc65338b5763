// Issue 60's money test: 10,000 mixed calls — per call (whole and sub-cent), per token and
// cost-plus; Dify and OpenAI doors, blocking and streaming, and streams their callers cut after the
// first chunk — with usage that differs call by call and callers' ceilings. It finds every caller
// charged exactly its rate × its reported usage (rounded up once per call to a micro-dollar), each
// caller's cents per app the exact total rounded up once, fees exact to the micro-dollar and posted
// rounded down once per creator, each creator's net = paid − fee − model cost, the ledger summing to
// 0, and no call charged above its caller's ceiling.
import { chargeMicros, type Pricing, type RateCard, rateCardOf } from '@tollbooth/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPaidTestContext, listenOnLoopback, type PaidTestContext } from '../../test-support/app.ts';
import type { RecordedRequest } from '../../test-support/fakes/http-fake.ts';
import { expectLedgerBalanced, grantFromOutside } from '../../test-support/ledger.ts';

const CALLS = Number(process.env.MIXED_MONEY_CALLS ?? 10_000);
const CUT_CALLS = Math.min(200, Math.floor(CALLS / 50));
const FEE_BPS = 1000;

let ctx: PaidTestContext;
let baseUrl: string;
beforeAll(async () => {
  ctx = await createPaidTestContext({ PLATFORM_FEE_BPS: String(FEE_BPS), SIGNUP_CREDITS_CENTS: '0', RATE_LIMIT_PER_MINUTE: '10000000' });
  baseUrl = await listenOnLoopback(ctx.app);
}, 60_000);
afterAll(async () => ctx?.close());

/** The call's number, from its query text: usage differs call by call, deterministically. */
const numberOf = (request: RecordedRequest) => Number(/mixed call (\d+)/.exec(request.rawBody)?.[1] ?? 0);
const usageOf = (n: number) => ({ inputTokens: 40 + ((n * 37) % 400), outputTokens: 10 + ((n * 53) % 900) });
/**
 * A call's text: long enough that the input tokens the fake reports (at most 439) are within what
 * the prompt can be, so no call's usage is above the most it was authorised for (which caps a charge).
 */
const queryOf = (n: number) => `mixed call ${n}: ${'lorem ipsum '.repeat(240)}`;

const grant = (userId: string, kind: 'user_credits' | 'creator_earnings', cents: number) => grantFromOutside(ctx.database.db, userId, kind, cents);

async function person(name: string, credits: number, keyFields: object = {}) {
  const user = await ctx.newUser(name);
  const created = await ctx.api('POST', '/api/keys/', user.token, { name: 'key', ...keyFields });
  expect(created.statusCode, created.body).toBe(201);
  if (credits > 0) await grant(user.id, 'user_credits', credits);
  return { ...user, key: created.json().key as string };
}

const CARDS: Record<string, Pricing> = {
  whole: { form: 'per_call', call_micros: 20_000 },
  subCent: { form: 'per_call', call_micros: 3_000 },
  perToken: { form: 'per_token', input_per_mtok_micros: 15_000_000, output_per_mtok_micros: 45_000_000, minimum_micros: 1_000 },
  costPlus: { form: 'cost_plus', markup_bps: 13_000, call_micros: 500 },
};

describe(`${CALLS.toLocaleString('en-US')} mixed calls`, () => {
  it('charge every caller its rate × its usage, keep fees exact, creators net = paid − fee − model cost, the ledger at 0, and no call above its ceiling', async () => {
    ctx.model.setBehaviour({ text: 'one two three four five six seven eight nine ten', usage: (request) => usageOf(numberOf(request)) });
    const creators = [await person('mixed-creator-a', 0), await person('mixed-creator-b', 0)];
    for (const creator of creators) await grant(creator.id, 'user_credits', 100_000);
    const apps: { slug: string; id: string; card: RateCard; ownerId: string }[] = [];
    for (const [index, [name, pricing]] of Object.entries(CARDS).entries()) {
      const owner = creators[index % 2]!;
      const { slug, id } = await ctx.liveApp(owner.token, { name: `Mixed ${name}`, pricing });
      const configured = await ctx.api('PATCH', `/api/app/${slug}/prompt/`, owner.token, { model: 'gpt-4-turbo', max_tokens: 1000 });
      expect(configured.statusCode, configured.body).toBe(200);
      apps.push({ slug, id, card: rateCardOf(pricing), ownerId: owner.id });
    }
    // Callers: one with a key capped at 4 cents a call (the per-token and cost-plus apps' most is above it).
    const callers = [
      await person('mixed-caller-1', 200_000),
      await person('mixed-caller-2', 200_000),
      await person('mixed-caller-3', 200_000, { max_price_cents: 4 }),
      await person('mixed-caller-4', 200_000),
    ];
    const ceilingMicros = new Map<string, number>([[callers[2]!.id, 40_000]]);

    const statuses = new Map<number, number>();
    const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
    const oneCall = async (n: number) => {
      const app = apps[n % apps.length]!;
      const caller = callers[Math.floor(n / apps.length) % callers.length]!;
      const query = queryOf(n);
      const door = n % 4;
      const response =
        door < 2
          ? await ctx.api('POST', `/api/app/${app.slug}/completion-messages`, caller.key, {
              inputs: { query },
              response_mode: door === 0 ? 'blocking' : 'streaming',
              user: 'mixed',
            })
          : await ctx.api('POST', '/v1/chat/completions', caller.key, { model: app.slug, messages: [{ role: 'user', content: query }], stream: door === 3 });
      count(response.statusCode);
      if (response.statusCode === 402) expect(response.body).toContain('price_above_limit');
      else expect(response.statusCode, response.body).toBe(200);
    };
    const inFlight = 16;
    let next = 0;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < CALLS - CUT_CALLS) await oneCall(next++);
      }),
    );

    // Streams their callers cut after the first chunk: charged for what the model generated.
    ctx.model.setBehaviour({ text: Array.from({ length: 40 }, (_, i) => `word${i}`).join(' '), chunkDelayMs: 15, usage: null });
    let cut = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (cut < CUT_CALLS) {
          const n = CALLS - CUT_CALLS + cut++;
          const app = apps[n % apps.length]!;
          const caller = callers[n % 2]!;
          const aborter = new AbortController();
          const response = await fetch(`${baseUrl}/api/app/${app.slug}/completion-messages`, {
            method: 'POST',
            headers: { authorization: `Bearer ${caller.key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ inputs: { query: queryOf(n) }, response_mode: 'streaming', user: 'cut' }),
            signal: aborter.signal,
          });
          expect(response.status).toBe(200);
          const reader = response.body!.getReader();
          let text = '';
          while (!text.includes('"answer"')) {
            const chunk = await reader.read();
            if (chunk.done) break;
            text += new TextDecoder().decode(chunk.value);
          }
          aborter.abort();
          await reader.cancel().catch(() => undefined);
          count(299); // a cut stream
        }
      }),
    );
    await ctx.app.settledReads();
    // A cut call is recorded once the gateway notices the caller left and settles it.
    await expect
      .poll(async () => Number((await ctx.sql<{ n: number }>("SELECT count(*)::int AS n FROM invocations WHERE end_user = 'cut'"))[0]!.n), { timeout: 60_000 })
      .toBe(CUT_CALLS);
    await ctx.app.settledReads();

    const rows = await ctx.sql<{
      app_id: string;
      caller_id: string;
      status: string;
      input_tokens: number;
      output_tokens: number;
      price_cents: number;
      charge_micros: number;
      fee_cents: number;
      fee_micros: number;
      model_cost_micros: number;
    }>(
      `SELECT app_id, caller_id, status, input_tokens, output_tokens, price_cents::int, charge_micros::bigint AS charge_micros, fee_cents::int, fee_micros::bigint AS fee_micros,
              model_cost_micros::bigint AS model_cost_micros
       FROM invocations WHERE app_id = ANY($1::uuid[])`,
      [apps.map((app) => app.id)],
    );
    const successes = rows.filter((row) => row.status === 'success');
    expect(successes.length).toBe(CALLS - (statuses.get(402) ?? 0));
    expect(statuses.get(402) ?? 0).toBeGreaterThan(0);

    const byApp = new Map(apps.map((app) => [app.id, app]));
    const perCallerApp = new Map<string, { micros: number; cents: number }>();
    const perCreator = new Map<string, { paid: number; feeMicros: number; feeCents: number; modelMicros: number }>();
    for (const row of successes) {
      const app = byApp.get(row.app_id)!;
      const charged = Number(row.charge_micros);
      const usage = { inputTokens: row.input_tokens, outputTokens: row.output_tokens, modelCostMicros: Number(row.model_cost_micros) };
      expect(usage.modelCostMicros).toBe(row.input_tokens * 10 + row.output_tokens * 30);
      // Its rate × its usage, rounded up once to a micro-dollar.
      expect(charged).toBe(chargeMicros(app.card, usage));
      expect(Number(row.fee_micros)).toBe(Math.floor((charged * FEE_BPS) / 10_000));
      expect(charged).toBeLessThanOrEqual(ceilingMicros.get(row.caller_id) ?? Number.POSITIVE_INFINITY);
      const key = `${row.caller_id}/${row.app_id}`;
      const pair = perCallerApp.get(key) ?? { micros: 0, cents: 0 };
      pair.micros += charged;
      pair.cents += row.price_cents;
      perCallerApp.set(key, pair);
      const creator = perCreator.get(app.ownerId) ?? { paid: 0, feeMicros: 0, feeCents: 0, modelMicros: 0 };
      creator.paid += row.price_cents;
      creator.feeMicros += Number(row.fee_micros);
      creator.feeCents += row.fee_cents;
      creator.modelMicros += usage.modelCostMicros;
      perCreator.set(app.ownerId, creator);
    }
    // Each caller paid each app its exact total rounded up once.
    for (const pair of perCallerApp.values()) expect(pair.cents).toBe(Math.ceil(pair.micros / 10_000));
    // Each caller's credits went down by what its calls posted.
    for (const caller of callers) {
      const paid = successes.filter((row) => row.caller_id === caller.id).reduce((sum, row) => sum + row.price_cents, 0);
      const [credits] = await ctx.sql<{ balance: number }>(
        "SELECT balance_cents::int AS balance FROM ledger_accounts WHERE kind = 'user_credits' AND user_id = $1",
        [caller.id],
      );
      expect(200_000 - credits!.balance).toBe(paid);
    }
    // Fees exact over the run, posted rounded down once per creator; each creator's net = paid − fee − model cost.
    for (const creator of creators) {
      const sums = perCreator.get(creator.id)!;
      expect(sums.feeCents).toBe(Math.floor(sums.feeMicros / 10_000));
      const modelCents = Math.ceil(sums.modelMicros / 10_000);
      const balances = await ctx.sql<{ balance: number; held: number }>(
        "SELECT coalesce(sum(balance_cents), 0)::int AS balance, coalesce(sum(held_cents), 0)::int AS held FROM ledger_accounts WHERE user_id = $1 AND kind IN ('user_credits', 'creator_earnings')",
        [creator.id],
      );
      expect(balances[0]!.balance - 100_000).toBe(sums.paid - sums.feeCents - modelCents);
    }
    await expectLedgerBalanced(ctx.database.db);
  }, 900_000);
});
