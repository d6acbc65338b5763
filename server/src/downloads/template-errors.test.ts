// The generated app's error wording (template/shared/src/tollbooth.ts), checked here because the
// template has no test runner of its own; the e2e test builds and drives the whole app.
import { describe, expect, it } from 'vitest';

// Imported by a computed path: the template is type-checked by its own tsconfig (DOM), not the server's.
const templateClient = './template/shared/src/tollbooth.ts';
const { describeError } = (await import(templateClient)) as {
  describeError(status: number, body: { code?: string; message?: string }, retryAfterSeconds: number | null): string;
};

describe("the generated app's error messages", () => {
  it('puts the statuses a caller meets into words', () => {
    expect(describeError(402, { code: 'insufficient_credits', message: 'Insufficient credits' }, null)).toMatch(/^Out of credits/);
    expect(describeError(402, { code: 'key_limit_exceeded' }, null)).toMatch(/spending limit/);
    expect(describeError(429, { code: 'rate_limited' }, 12)).toBe('Slow down: too many requests. Retry in 12 s.');
    expect(describeError(400, { code: 'invalid_param', message: 'inputs.topic: is required' }, null)).toBe(
      'Please check your input: inputs.topic: is required',
    );
    expect(describeError(401, {}, null)).toMatch(/TOLLBOOTH_API_KEY/);
    expect(describeError(404, { message: 'Application not found' }, null)).toMatch(/not available right now/);
    expect(describeError(504, {}, null)).toMatch(/not charged/);
    expect(describeError(502, { code: 'tollbooth_unreachable' }, null)).toMatch(/^Could not reach Tollbooth/);
  });
});
