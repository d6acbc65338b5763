// The one rule for turning any failure into the text a user sees (spec section 8): the response's
// `detail`, then `message`, then `error`, then the thrown error's own message, else a fallback.

export const UNEXPECTED_ERROR_MESSAGE = 'An unexpected error occurred';

/** A failed HTTP call to the Tollbooth API, carrying the parsed JSON body (`{code, message, status}`). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  /** The request field a 400 error is about, e.g. `user.username`. */
  readonly params: string | undefined;
  readonly body: unknown;

  constructor(status: number, body: unknown, fallbackMessage: string) {
    super(textFromBody(body) ?? fallbackMessage);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
    this.code = stringField(body, 'code');
    this.params = stringField(body, 'params');
  }
}

function stringField(body: unknown, key: string): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as Record<string, unknown>)[key];
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function textFromBody(body: unknown): string | undefined {
  return stringField(body, 'detail') ?? stringField(body, 'message') ?? stringField(body, 'error');
}

/** Where a thrown value keeps the server's answer: our ApiError, or any error with a `response.data` / `body`. */
function responseBodyOf(error: unknown): unknown {
  if (error instanceof ApiError) return error.body;
  if (typeof error !== 'object' || error === null) return undefined;
  const candidate = error as { response?: { data?: unknown }; body?: unknown };
  return candidate.response?.data ?? candidate.body;
}

/** The text to show for a failed call. */
export function getErrorMessage(error: unknown): string {
  const fromBody = textFromBody(responseBodyOf(error));
  if (fromBody) return fromBody;
  if (error instanceof Error && error.message.trim() !== '') return error.message;
  return UNEXPECTED_ERROR_MESSAGE;
}

/** A 401 is only logged, never shown as a page error (spec section 8). */
export function isUnauthorizedError(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401;
}
