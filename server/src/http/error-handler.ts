import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError, ERROR_STATUS, type ErrorCode } from '../platform/errors.ts';
import { describeSchemaError } from '../platform/validation.ts';
import { refusedMultipartBody } from './request-guards.ts';

interface ErrorBody {
  code: string;
  message: string;
  status: number;
  params?: string;
  /** The request's X-Request-Id, to match a report with the logs. */
  request_id: string;
}

/** SQLSTATE query_canceled: a statement stopped by its statement_timeout. */
const QUERY_CANCELED = '57014';

/** Names the field of the first schema violation, e.g. "body/first_name" becomes "first_name". */
function describeValidation(error: FastifyError): { field: string; message: string } {
  const first = error.validation?.[0];
  const context = error.validationContext ?? 'body';
  if (!first) return { field: context, message: error.message };
  const { path, message } = describeSchemaError(first);
  const field = path.length > 0 ? path.join('.') : context;
  return { field, message };
}

export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((thrown: FastifyError, request, reply) => {
    const error: FastifyError = refusedMultipartBody(thrown, request.headers['content-type']) ?? thrown;
    let body: Omit<ErrorBody, 'request_id'>;
    if (error instanceof AppError) {
      body = { code: error.code, message: error.message, status: error.status, ...(error.params ? { params: error.params } : {}) };
    } else if (error.validation) {
      const { field, message } = describeValidation(error);
      body = { code: 'invalid_param', message: `${field}: ${message}`, status: 400, params: field };
    } else if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      const code = (
        {
          405: 'method_not_allowed',
          413: 'payload_too_large',
          415: 'unsupported_media_type',
          429: 'rate_limited',
          404: 'not_found',
          401: 'unauthorized',
          403: 'forbidden',
        } as Record<number, ErrorCode>
      )[error.statusCode];
      // Malformed JSON, empty bodies and other client mistakes Fastify catches before our code.
      body = { code: code ?? 'invalid_param', message: error.message, status: error.statusCode };
    } else if ((error as { code?: unknown }).code === QUERY_CANCELED) {
      // A read's statement_timeout (db/reads.ts, READ_STATEMENT_TIMEOUT_MS): no runaway query, a clear answer.
      request.log.warn({ err: error }, 'a read passed its statement timeout');
      body = {
        code: 'service_unavailable',
        message: 'The database took longer than READ_STATEMENT_TIMEOUT_MS to answer this read, which was stopped: ask for a shorter period or fewer rows',
        status: ERROR_STATUS.service_unavailable,
      };
    } else {
      request.log.error({ err: error }, 'unhandled error');
      body = { code: 'internal_error', message: 'Internal server error', status: ERROR_STATUS.internal_error };
    }
    if (body.status === 401) reply.header('WWW-Authenticate', bearerChallenge(request.headers.authorization));
    return reply.status(body.status).send({ ...body, request_id: request.id } satisfies ErrorBody);
  });
}

/** RFC 6750's challenge: with error="invalid_token" when a token was sent and refused. */
export function bearerChallenge(authorization: string | undefined): string {
  return authorization
    ? 'Bearer realm="api", error="invalid_token", error_description="The access token or API key is invalid, expired or revoked"'
    : 'Bearer realm="api"';
}
