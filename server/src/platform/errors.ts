// One error type for the whole server. A domain error carries a code; this table maps codes to
// HTTP statuses; the error handler in app.ts answers {code, message, status} and nothing more.
export const ERROR_STATUS = {
  invalid_param: 400,
  unauthorized: 401,
  insufficient_credits: 402,
  key_limit_exceeded: 402,
  price_above_limit: 402,
  forbidden: 403,
  app_unavailable: 403,
  /** Dify's code for a chat call to an app that is not a chat app. */
  not_chat_app: 400,
  /** Dify's code for a workflow run on an app that is not a workflow app. */
  not_workflow_app: 400,
  not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  /** A call that came back through a chain of Tollbooth calls (http/call-chain.ts). */
  call_loop: 508,
  internal_error: 500,
  provider_error: 502,
  /** The creator's provider key stopped working. */
  provider_auth_failed: 502,
  /** The creator's provider account ran out of quota. */
  provider_quota_exceeded: 502,
  service_unavailable: 503,
  /** The app's creator cannot pay the model cost its price does not cover (decision 0025). */
  model_cost_not_covered: 503,
  provider_timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** The request field the error is about, when there is one. */
    readonly params?: string,
    status?: number,
    /** A finer reason than the code, recorded on failed invocations (e.g. output_schema_mismatch). */
    readonly errorType?: string,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = status ?? ERROR_STATUS[code];
  }
}

export const invalidParam = (field: string, message: string) => new AppError('invalid_param', `${field}: ${message}`, field);
export const notFound = (message = 'Not found') => new AppError('not_found', message);
export const unauthorized = (message = 'Authentication required') => new AppError('unauthorized', message);

/** key_limit_exceeded, with the cap that refused the call (spend_cap.reached says which, webhooks/). */
export class SpendCapError extends AppError {
  constructor(
    readonly window: 'day' | 'month',
    message: string,
  ) {
    super('key_limit_exceeded', message);
  }
}
