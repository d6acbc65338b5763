// The error type recorded for whatever ended a call; the call's outcome (success, failed,
// rejected) follows from that type alone, by the rule in ../platform/call-outcomes.ts.
import { AppError } from '../platform/errors.ts';

/** The recorded error type of an error that ended a call: the AppError's finer reason or code. */
export function errorTypeOf(error: unknown): string {
  if (error instanceof AppError) return error.errorType ?? error.code;
  if ((error as Error)?.name === 'AbortError') return 'client_disconnected';
  return 'internal_error';
}
