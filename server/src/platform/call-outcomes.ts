// The outcome of every call, as docs/design.md's analytics section defines it:
// - success: answered;
// - rejected: the caller's own mistake (authentication, access, validation, credits, price cap,
//   rate limit, an idempotency conflict, the wrong endpoint for the app's mode, or leaving before any
//   answer), so the app is not blamed;
// - failed: the app or its provider failed (provider errors and timeouts, an answer that breaks
//   the output schema, an app whose saved schema cannot be used, anything unexpected).
// Success rate is success / (success + failed); rejected calls are counted apart, by error type.
// The outcome is a function of the recorded error type alone, so the per-type rollups carry it and
// the backfill of migration 0017_outcomes.sql classifies old calls the same way (a test checks).
// Billing records it with every call (billing/paid-call/queries.ts); the gateway names the error type of
// whatever ended a call (gateway/outcomes.ts).
import { ERROR_STATUS, type ErrorCode } from './errors.ts';

export type CallOutcome = 'success' | 'failed' | 'rejected';

/** The error types of a caller's mistakes: every 4xx error code, and a caller that left before any answer. */
export const REJECTED_ERROR_TYPES: ReadonlySet<string> = new Set([
  ...(Object.keys(ERROR_STATUS) as ErrorCode[]).filter((code) => ERROR_STATUS[code] < 500),
  'client_disconnected',
  // A call to the other mode's endpoint (chat-messages to a completion app, or the reverse): call-rules.ts.
  'wrong_route',
]);

/** failed or rejected, for a call that was not answered. */
export function outcomeOfErrorType(errorType: string): 'failed' | 'rejected' {
  return REJECTED_ERROR_TYPES.has(errorType) ? 'rejected' : 'failed';
}
