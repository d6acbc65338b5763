// A generous per-user rate limit on the management API (/api/...: apps, keys, billing, analytics…),
// with the same headers as the paid calls: RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset on
// every signed-in answer, and Retry-After with 429 when the minute's requests are used. It keeps a
// runaway script or a stuck front end from flooding the API; a person never reaches it
// (MANAGEMENT_RATE_LIMIT_PER_MINUTE, default 1200). Anonymous reads (catalog, config, health) and
// webhooks are not counted here: they have no user, and the catalog is cacheable (decision 0029).
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { AppError } from '../platform/errors.ts';
import type { RateLimiter } from '../platform/rate-limit.ts';

/** Adds the limit, after the route's own authentication, to every route registered in `scope` from now on. */
export function limitManagementRequests(scope: FastifyInstance, limiter: RateLimiter) {
  const check = async (request: FastifyRequest, reply: FastifyReply) => {
    const userId = request.auth?.user.id;
    if (!userId) return;
    const decision = await limiter.hit(`management:${userId}`);
    reply.header('RateLimit-Limit', decision.limit).header('RateLimit-Remaining', decision.remaining).header('RateLimit-Reset', decision.resetSeconds);
    if (!decision.allowed) {
      reply.header('Retry-After', decision.resetSeconds);
      throw new AppError('rate_limited', `Too many requests: at most ${decision.limit} a minute; retry in ${decision.resetSeconds} s`);
    }
  };
  scope.addHook('onRoute', (route: RouteOptions) => {
    const own = route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler];
    route.preHandler = [...own, check] as RouteOptions['preHandler'];
  });
}
