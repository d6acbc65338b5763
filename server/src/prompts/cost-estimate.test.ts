// Margin in the forms: the worst case of one call is a bound at the form's settings (bytes of the
// prompts, each variable at its limit within the gateway's inputs limit, max_tokens out), priced
// exactly in micro-dollars; the typical cost is the mean model cost of the app's recent successful
// calls on the platform keys (demo answers, failures and calls without a model cost left out),
// for the owner only.
import { AUTO_DECLARED_MAX_LENGTH, type CostEstimateRequest, declareTemplateVariables } from '@tollbooth/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseModelTable } from '../platform/model-table.ts';
import { createModelRouter } from '../providers/registry.ts';
import { createTestContext, type TestContext } from '../test-support/app.ts';
import { createCostEstimator, MAX_INPUTS_CHARACTERS, worstCaseInputTokens } from './cost-estimate.ts';

const schema = (properties: Record<string, object>) => ({ type: 'object' as const, properties: properties as never, additionalProperties: false });

describe('the worst case of one call', () => {
  it('counts the prompts in bytes and each variable at its limit', () => {
    const result = worstCaseInputTokens(
      'Be brief.',
      'Summarize: {{text}} in {{ lang }}',
      schema({ text: { type: 'string', maxLength: 5000 }, lang: { type: 'string', enum: ['en', 'fr', 'de'] } }),
    );
    // 9 + 15 bytes of text, 5000 characters of up to 4 bytes, a 2-byte enum value, 16 tokens of overhead.
    expect(result).toEqual({ tokens: 9 + 15 + 20_000 + 2 + 16, unbounded: [] });
  });

  it('lets a string without maxLength fill the inputs limit, shared by every variable, repeats counted', () => {
    const result = worstCaseInputTokens(
      '',
      '{{a}} {{b}} {{a}} {{n}}',
      schema({ a: { type: 'string' }, b: { type: 'string', maxLength: 10 }, n: { type: 'integer' } }),
    );
    const budget = MAX_INPUTS_CHARACTERS * 3;
    // "a" appears twice, so it takes the whole budget first; the others get what is left (nothing).
    expect(result).toEqual({ tokens: 3 + 2 * budget + 16, unbounded: ['a'] });
    expect(worstCaseInputTokens('sys', 'no variables', undefined)).toEqual({ tokens: 3 + 12 + 16, unbounded: [] });
  });

  it('counts a variable the schema leaves out at the maxLength the gateway declares it with (issue 61), not as 64 KiB', () => {
    // As the gateway validates a call: declared automatically, a required string of at most AUTO_DECLARED_MAX_LENGTH characters.
    expect(worstCaseInputTokens('', '{{undeclared}}', schema({}))).toEqual({ tokens: AUTO_DECLARED_MAX_LENGTH * 4 + 16, unbounded: [] });
    expect(worstCaseInputTokens('', '{{a}} {{b}} {{c}}', undefined)).toEqual({ tokens: 2 + 3 * AUTO_DECLARED_MAX_LENGTH * 4 + 16, unbounded: [] });
    expect((declareTemplateVariables('{{a}}', schema({})).properties as Record<string, object>).a).toMatchObject({
      type: 'string',
      maxLength: AUTO_DECLARED_MAX_LENGTH,
    });
  });
});

describe('POST /api/prompt/cost-estimate/', () => {
  let ctx: TestContext;
  let owner: string;
  let stranger: string;
  let slug: string;
  let appId: string;

  const estimate = (token: string, payload: object) =>
    ctx.app.inject({ method: 'POST', url: '/api/prompt/cost-estimate/', headers: { authorization: `Bearer ${token}` }, payload });

  beforeAll(async () => {
    ctx = await createTestContext();
    owner = await ctx.tokenFor('cost-owner');
    stranger = await ctx.tokenFor('cost-stranger');
    const created = await ctx.api('POST', '/api/app/', owner, { name: 'Essay Writer', type: 'prompt', price_cents: 1 });
    expect(created.statusCode).toBe(201);
    ({ slug, id: appId } = created.json());
    // Newest last: three paid gpt-4-turbo successes (1000, 2000, 4001 µ$), a demo answer, a failure,
    // a call on the creator's own key (no model cost), and one on the app's earlier model.
    const rows: [string, boolean, number, string][] = [
      ['success', false, 1000, 'gpt-4-turbo'],
      ['success', true, 0, 'gpt-4-turbo'],
      ['error', false, 0, 'gpt-4-turbo'],
      ['success', false, 99_999, 'claude-3-opus'],
      ['success', false, 2000, 'gpt-4-turbo'],
      ['success', false, 0, 'gpt-4-turbo'],
      ['success', false, 4001, 'gpt-4-turbo'],
    ];
    for (const [i, [status, demo, micros, model]] of rows.entries()) {
      await ctx.database.db.query(
        `INSERT INTO invocations (app_id, status, demo, model_cost_micros, model, provider, created_at) VALUES ($1, $2, $3, $4, $5, 'openai', now() - make_interval(secs => $6))`,
        [appId, status, demo, micros, model, 60 - i],
      );
    }
  }, 180_000);

  afterAll(async () => {
    await ctx?.close();
  });

  const body: CostEstimateRequest = {
    model: 'gpt-4-turbo',
    max_tokens: 4000,
    system_prompt: 'Be brief.',
    prompt_template: 'Summarize: {{text}}',
    input_schema: schema({ text: { type: 'string', maxLength: 100 } }),
  };

  it("answers the model's prices and the worst case for an unsaved prompt, without a typical cost", async () => {
    const response = await estimate(owner, body);
    expect(response.statusCode, response.body).toBe(200);
    // gpt-4-turbo in the price dataset: $10 in, $30 out per million tokens.
    expect(response.json()).toEqual({
      model: 'gpt-4-turbo',
      prices: { input_per_million_usd: 10, output_per_million_usd: 30 },
      worst_case_input_tokens: 9 + 11 + 400 + 16,
      worst_case_output_tokens: 4000,
      worst_case_micros: (9 + 11 + 400 + 16) * 10 + 4000 * 30,
      typical_micros: null,
      typical_calls: 0,
      unbounded_variables: [],
    });
  });

  it('says a model without a known price has none, and no worst case', async () => {
    const table = parseModelTable('{"gpt4": {"provider": "openai", "upstreamModel": "in-house-model-without-a-price"}}');
    const estimator = createCostEstimator({ db: ctx.database.db, priceOfModel: createModelRouter(ctx.config.models, { table }).priceOf });
    expect(await estimator.estimate({ ...body, model: 'gpt4' }, null)).toMatchObject({
      model: 'gpt4',
      prices: null,
      worst_case_micros: null,
      worst_case_input_tokens: 436,
    });
  });

  it("adds the mean model cost of the owner's app's recent successful paid calls to the form's model", async () => {
    const response = await estimate(owner, { ...body, app_slug: slug });
    expect(response.statusCode, response.body).toBe(200);
    // (1000 + 2000 + 4001) / 3 = 2333.67 → 2334.
    expect(response.json()).toMatchObject({ typical_micros: 2334, typical_calls: 3 });
    const earlier = await estimate(owner, { ...body, model: 'claude-3-opus', app_slug: slug });
    expect(earlier.json()).toMatchObject({ typical_micros: 99_999, typical_calls: 1 });
    const none = await estimate(owner, { ...body, model: 'gemini-pro', app_slug: slug });
    expect(none.json()).toMatchObject({ typical_micros: null, typical_calls: 0 });
  });

  it("is 404 for someone else's app, and 400 naming the field for bad settings", async () => {
    const theirs = await estimate(stranger, { ...body, app_slug: slug });
    expect(theirs.statusCode).toBe(404);
    const bad = await estimate(owner, { ...body, max_tokens: 0 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/max_tokens/);
    const model = await estimate(owner, { ...body, model: 'gpt-5-ultra' });
    expect(model.statusCode).toBe(400);
    expect(model.json().message).toMatch(/model/);
  });

  it("takes the operator's MODEL_TABLE prices, rounding the worst case up to the micro-dollar once", async () => {
    const table = parseModelTable('{"mixtral": {"provider": "openai", "upstreamModel": "mixtral-8x7b", "prices": {"input": 0.15, "output": 0.6}}}');
    const estimator = createCostEstimator({ db: ctx.database.db, priceOfModel: createModelRouter(ctx.config.models, { table }).priceOf });
    const priced = await estimator.estimate({ ...body, model: 'mixtral', max_tokens: 3 }, appId);
    // 436 × 0.15 + 3 × 0.6 = 67.2 µ$ → 68.
    expect(priced).toMatchObject({ prices: { input_per_million_usd: 0.15, output_per_million_usd: 0.6 }, worst_case_micros: 68, typical_micros: null });
  });
});
