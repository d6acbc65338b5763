// Issue 61, trap 9: every console call and test run says what it charged. A caller's call carries
// its price (usage.total_price); the owner's own call, charged no price, carries the model cost its
// owner's credits pay (usage.owner_model_cost, to the micro-dollar), equal to what the call recorded;
// a Test Prompt run with the model carries its model cost and who paid it (run_cost).
import { afterAll, describe, expect, it } from 'vitest';
import { createPaidTestContext } from '../test-support/app.ts';
import { sendCompletion } from '../test-support/paid-call.ts';

const ctx = await createPaidTestContext({ SIGNUP_CREDITS_CENTS: '1000' });
afterAll(() => ctx.close());

describe('what a call charged (issue 61)', () => {
  it("says the price of a caller's call and the model cost of the owner's own call and test run", async () => {
    const owner = await ctx.newUser('owner');
    const caller = await ctx.newUser('caller');
    const { slug } = await ctx.liveApp(owner.token, { name: 'Charged', price_cents: 5 });

    const paid = await sendCompletion(ctx.app, slug, caller.token);
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json().metadata.usage.total_price).toBe('0.0500000');
    expect(paid.json().metadata.usage.owner_model_cost).toBeUndefined();

    const own = await sendCompletion(ctx.app, slug, owner.token);
    expect(own.statusCode, own.body).toBe(200);
    const usage = own.json().metadata.usage;
    expect(usage.total_price).toBe('0.0000000');
    const [recorded] = await ctx.sql<{ model_cost_micros: string }>('SELECT model_cost_micros FROM invocations WHERE id = $1', [own.json().id]);
    const micros = Number(recorded!.model_cost_micros);
    expect(micros).toBeGreaterThan(0);
    expect(usage.owner_model_cost).toBe(`0.${String(micros).padStart(6, '0')}`);

    const run = await ctx.api('POST', `/api/app/${slug}/prompt/test-config/`, owner.token, {
      prompt_template: '{{query}}',
      test_inputs: { query: 'hi' },
      run: true,
    });
    expect(run.statusCode, run.body).toBe(200);
    const [testRun] = await ctx.sql<{ model_cost_micros: string }>('SELECT model_cost_micros FROM test_runs ORDER BY created_at DESC LIMIT 1');
    expect(run.json().run_cost).toEqual({ model_cost_micros: Number(testRun!.model_cost_micros), paid_by: 'credits' });
    expect(run.json().run_cost.model_cost_micros).toBeGreaterThan(0);
  });
});
