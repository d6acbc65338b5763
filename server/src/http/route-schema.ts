// The OpenAPI shapes every signed-in user's route repeats, written once: its errors, its bearer
// security, and the options that authenticate it and tag its operation.
import { ErrorResponse } from '@tollbooth/contract';
import type { FastifyReply, FastifySchema } from 'fastify';

/** The errors of a signed-in user's route: a bad request, no or a bad token, not found (or not theirs: the same 404). */
export const SIGNED_IN_ERRORS = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };

/** The OpenAPI security of a route that needs a bearer token. */
export const BEARER = [{ bearer: [] }];

/**
 * The options of a signed-in user's routes under one OpenAPI tag: `authenticate` runs before the
 * handler (the authentication hook, handed in: http/ imports no feature), and the operation is tagged
 * and marked as needing a bearer token; the route's own schema fields follow.
 */
export function signedInRoutes<Hook>(authenticate: Hook, tags: string[]) {
  return <const Schema extends FastifySchema>(schema: Schema) => ({ preHandler: authenticate, schema: { tags, security: BEARER, ...schema } });
}

/** A handler that does `action` and answers 204 with no body (a delete, a revoke). */
export function noContent<Request>(action: (request: Request) => Promise<unknown>) {
  return async (request: Request, reply: FastifyReply) => {
    await action(request);
    return reply.status(204).send(null);
  };
}

/**
 * The options of the routes a caller's key (or token) calls, under one OpenAPI tag: the handler finds
 * the caller itself (no preHandler); the operation is tagged and marked as needing a bearer token.
 */
export function keyedRoutes(tags: string[]) {
  return <const Schema extends FastifySchema>(schema: Schema) => ({ schema: { tags, security: BEARER, ...schema } });
}
