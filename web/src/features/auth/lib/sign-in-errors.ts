// Identity client failures in the words of the spec (section 8).
import type { ErrorResponse } from 'oidc-client-ts';
import { getErrorMessage } from '@/lib/errors';

export const SIGN_IN_FAILED_MESSAGE = 'Failed to sign in';
export const SIGN_OUT_FAILED_MESSAGE = 'Failed to sign out';

/** oidc-client-ts's ErrorResponse (the provider's `error` answer), told by its name so the client can load lazily. */
function isErrorResponse(error: unknown): error is ErrorResponse {
  return error instanceof Error && error.name === 'ErrorResponse' && 'error' in error;
}

export function describeSignInError(error: unknown): string {
  if (isErrorResponse(error)) {
    if (error.error === 'access_denied') return 'The user cancelled the action.';
    if (error.error === 'login_required' || error.error === 'interaction_required') return 'Not authenticated';
    return error.error_description || error.message || SIGN_IN_FAILED_MESSAGE;
  }
  const message = error instanceof Error ? error.message : '';
  if (/no matching state/i.test(message)) return 'Sign-in session not found';
  if (/no state in response|invalid state|state mismatch/i.test(message)) return 'Invalid sign-in session';
  if (/user ?info/i.test(message)) return 'Unable to fetch user info';
  if (/popup closed|cancel/i.test(message)) return 'The user cancelled the action.';
  const text = getErrorMessage(error);
  return text === 'An unexpected error occurred' ? SIGN_IN_FAILED_MESSAGE : text;
}
