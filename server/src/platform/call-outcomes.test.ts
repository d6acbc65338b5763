// The outcome rule alone (docs/design.md's analytics): the app's faults fail, the caller's mistakes are
// rejected, by error type. gateway/outcomes.test.ts checks it through the gateway and analytics.
import { describe, expect, it } from 'vitest';
import { outcomeOfErrorType } from './call-outcomes.ts';

describe('call outcomes', () => {
  it('are failed for the app’s faults and rejected for the caller’s mistakes, by type', () => {
    for (const type of ['provider_error', 'provider_timeout', 'output_schema_mismatch', 'invalid_schema', 'internal_error', '']) {
      expect(outcomeOfErrorType(type), type).toBe('failed');
    }
    for (const type of [
      'unauthorized',
      'not_found',
      'app_unavailable',
      'invalid_param',
      'insufficient_credits',
      'price_above_limit',
      'rate_limited',
      'conflict',
      'client_disconnected',
    ]) {
      expect(outcomeOfErrorType(type), type).toBe('rejected');
    }
  });
});
