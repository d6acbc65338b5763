// Every answer carries X-Request-Id: the caller's own id when it sent a sane one (so a proxy's or a
// client's id follows the request through), otherwise a fresh UUID. The same id is the request
// log's `reqId` and the `request_id` of every error body, so a report can be matched to logs.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

export const REQUEST_ID_HEADER = 'x-request-id';

/** Printable, no spaces or separators that could forge log fields or headers, at most 128 characters. */
const VALID_REQUEST_ID = /^[A-Za-z0-9._:@+=/-]{1,128}$/;

export function isValidRequestId(value: unknown): value is string {
  return typeof value === 'string' && VALID_REQUEST_ID.test(value);
}

/** Fastify's genReqId: echo a valid incoming X-Request-Id, else a new UUID. */
export function requestIdOf(request: IncomingMessage): string {
  const incoming = request.headers[REQUEST_ID_HEADER];
  return isValidRequestId(incoming) ? incoming : randomUUID();
}

/**
 * Sets the header on the raw response, before any route runs: answers written by hijacked routes
 * (the embedded OIDC provider), static files and the not-found handler carry it too.
 */
export function registerRequestIdHeader(app: FastifyInstance) {
  app.addHook('onRequest', (request, reply, done) => {
    reply.raw.setHeader('X-Request-Id', request.id);
    done();
  });
}
