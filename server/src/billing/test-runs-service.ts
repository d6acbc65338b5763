// Test runs (Test Prompt with run: true, in the builder and on the detail page) pay their model
// cost from the owner's credits, like the owner's own calls (decision 0025): the worst case is held
// before the model is asked, the actual cost is posted after, and the run is recorded in test_runs,
// apart from callers' calls. They are rate-limited like calls. Demo answers and the creator's own
// key cost nothing, and are recorded too.
import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../db/client.ts';
import { AppError } from '../errors.ts';
import { centsCovering, type ModelPrice, modelCostMicros } from '../providers/model-prices.ts';
import type { ModelUsage } from '../providers/types.ts';
import type { RateLimiter } from '../rate-limit.ts';
import { type CreditHold, releaseCharge, reserveCharge } from './paid-call/holds.ts';

export interface TestRunRequest {
  userId: string;
  appId: string | null;
  model: string;
  provider: string;
  /** The model's price on the operator's key; null when the run costs the operator nothing (demo, own key). */
  price: ModelPrice | null;
  demo: boolean;
  /** The most the run can cost, in micro-dollars. */
  worstCaseMicros: number;
}

export interface TestRunBilling {
  /** Runs `ask` as a paid test run: rate limit, hold, ask, post the cost and record it (or give the hold back and record the failure). */
  run<T extends { usage: ModelUsage }>(request: TestRunRequest, ask: () => Promise<T>): Promise<T & { modelCostMicros: number }>;
}

const POST_TEST_RUN_SQL = `
WITH metered AS (
  INSERT INTO model_cost_meters AS m (user_id, micros) VALUES ($1, $2::bigint)
  ON CONFLICT (user_id) DO UPDATE SET micros = m.micros + EXCLUDED.micros
  RETURNING (m.micros + 9999) / 10000 - (m.micros - $2::bigint + 9999) / 10000 AS posted
),
hold AS (
  DELETE FROM credit_holds WHERE id = $3 RETURNING account_id, amount_cents
),
credits AS (
  UPDATE ledger_accounts a SET balance_cents = a.balance_cents - (SELECT posted FROM metered), held_cents = a.held_cents - h.amount_cents
  FROM hold h WHERE a.id = h.account_id RETURNING a.id
),
model_costs AS (
  UPDATE ledger_accounts SET balance_cents = balance_cents + (SELECT posted FROM metered)
  WHERE kind = 'model_costs' AND user_id IS NULL AND currency = 'usd' AND (SELECT posted FROM metered) > 0 RETURNING id
),
moved AS (
  INSERT INTO ledger_transactions (id, kind, reference, description)
  SELECT $4::uuid, 'test_run', 'test:' || $5, $6 FROM metered WHERE posted > 0
),
entries AS (
  INSERT INTO ledger_entries (transaction_id, account_id, amount_cents)
  SELECT $4::uuid, c.id, -(SELECT posted FROM metered) FROM credits c WHERE (SELECT posted FROM metered) > 0
  UNION ALL
  SELECT $4::uuid, m.id, (SELECT posted FROM metered) FROM model_costs m
)
SELECT tollbooth_assert((SELECT count(*) FROM credits) = 1, 'the test run''s hold was already released') AS ok, (SELECT posted FROM metered) AS posted`;

const RECORD_TEST_RUN_SQL = `
WITH recorded AS (
  INSERT INTO test_runs (id, user_id, app_id, model, provider, status, error_type, input_tokens, output_tokens, model_cost_micros, demo, latency_ms)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
  RETURNING created_at, model, provider, model_cost_micros, demo, status
)
INSERT INTO platform_daily_model_stats AS p (day, provider, model, test_runs, model_cost_micros)
SELECT (created_at AT TIME ZONE 'UTC')::date, provider, model, 1, model_cost_micros FROM recorded WHERE NOT demo AND status = 'success'
ON CONFLICT (day, provider, model) DO UPDATE SET test_runs = p.test_runs + 1, model_cost_micros = p.model_cost_micros + EXCLUDED.model_cost_micros`;

export function createTestRunBilling(db: Database, rateLimiter: RateLimiter): TestRunBilling {
  const record = (
    q: Queryable,
    id: string,
    request: TestRunRequest,
    outcome: { status: 'success' | 'error'; errorType: string; usage: ModelUsage; micros: number; latencyMs: number },
  ) =>
    q.query(RECORD_TEST_RUN_SQL, [
      id,
      request.userId,
      request.appId,
      request.model,
      request.provider,
      outcome.status,
      outcome.errorType,
      outcome.usage.inputTokens,
      outcome.usage.outputTokens,
      outcome.micros,
      request.demo,
      Math.round(outcome.latencyMs),
    ]);

  return {
    async run<T extends { usage: ModelUsage }>(request: TestRunRequest, ask: () => Promise<T>) {
      const decision = await rateLimiter.hit(`user:${request.userId}`);
      if (!decision.allowed) {
        throw new AppError(
          'rate_limited',
          `Rate limit of ${decision.limit} calls per minute exceeded (test runs count as calls); retry in ${decision.resetSeconds} s`,
        );
      }
      const id = randomUUID();
      const paid = request.price !== null && !request.demo;
      let hold: CreditHold | null = null;
      if (paid) {
        const worstCents = Math.max(1, centsCovering(request.worstCaseMicros));
        try {
          hold = await reserveCharge(db, { userId: request.userId, amountCents: worstCents, apiKeyId: null, monthlySpendLimitCents: null });
        } catch (error) {
          if (error instanceof AppError && error.code === 'insufficient_credits') {
            throw new AppError(
              'insufficient_credits',
              `A test run on ${request.model} costs up to $${(worstCents / 100).toFixed(2)} of model use, paid from your credits, which do not cover it. Add credit on the Money page (/money).`,
            );
          }
          throw error;
        }
      }
      const startedAt = performance.now();
      let result: T;
      try {
        result = await ask();
      } catch (error) {
        if (hold) await releaseCharge(db, hold);
        const errorType = error instanceof AppError ? (error.errorType ?? error.code) : 'provider_error';
        await record(db, id, request, {
          status: 'error',
          errorType,
          usage: { inputTokens: 0, outputTokens: 0 },
          micros: 0,
          latencyMs: performance.now() - startedAt,
        });
        throw error;
      }
      const micros = paid && request.price ? modelCostMicros(request.price, result.usage) : 0;
      const succeeded = { status: 'success' as const, errorType: '', usage: result.usage, micros, latencyMs: performance.now() - startedAt };
      const settledHold = hold;
      if (settledHold) {
        // The cost, the ledger and the record of the run: all or nothing.
        await db.transaction(async (tx) => {
          await tx.query(POST_TEST_RUN_SQL, [request.userId, micros, settledHold.id, randomUUID(), id, `Test run of ${request.model}`]);
          await record(tx, id, request, succeeded);
        });
      } else await record(db, id, request, succeeded);
      return { ...result, modelCostMicros: micros };
    },
  };
}
