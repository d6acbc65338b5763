// Test runs (Test Prompt with run: true, in the builder and on the detail page) pay their model
// cost from the owner's credits, like the owner's own calls (decision 0025): the worst case is held
// before the model is asked, the actual cost is posted after, and the run is recorded in test_runs,
// apart from callers' calls. They are rate-limited like calls. Demo answers and the creator's own
// key cost nothing, and are recorded too. The SQL is in queries.ts.

import { randomUUID } from 'node:crypto';
import { formatCents } from '@tollbooth/contract';
import type { Database, Queryable } from '../db/client.ts';
import { AppError } from '../platform/errors.ts';
import type { RateLimiter } from '../platform/rate-limit.ts';
import { centsCovering, type ModelPrice, modelCostMicros } from '../providers/model-prices.ts';
import type { ModelUsage } from '../providers/types.ts';
import { type CreditHold, releaseCharge, reserveCharge } from './paid-call/holds.ts';
import { postTestRunCost, recordTestRun } from './queries.ts';

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

export function createTestRunBilling(db: Database, rateLimiter: RateLimiter): TestRunBilling {
  const record = (
    q: Queryable,
    id: string,
    request: TestRunRequest,
    outcome: { status: 'success' | 'error'; errorType: string; usage: ModelUsage; micros: number; latencyMs: number },
  ) =>
    recordTestRun(q, {
      id,
      userId: request.userId,
      appId: request.appId,
      model: request.model,
      provider: request.provider,
      status: outcome.status,
      errorType: outcome.errorType,
      inputTokens: outcome.usage.inputTokens,
      outputTokens: outcome.usage.outputTokens,
      modelCostMicros: outcome.micros,
      demo: request.demo,
      latencyMs: outcome.latencyMs,
    });

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
              `A test run on ${request.model} costs up to ${formatCents(worstCents)} of model use, paid from your credits, which do not cover it. Add credit on the Money page (/money).`,
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
          await postTestRunCost(tx, {
            userId: request.userId,
            micros,
            holdId: settledHold.id,
            ledgerTransactionId: randomUUID(),
            testRunId: id,
            description: `Test run of ${request.model}`,
          });
          await record(tx, id, request, succeeded);
        });
      } else await record(db, id, request, succeeded);
      return { ...result, modelCostMicros: micros };
    },
  };
}
