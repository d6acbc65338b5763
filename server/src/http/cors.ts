// CORS for the caller endpoints only: a page on any origin may call an app with an API key (the
// Dify Service API under /api/app/{slug}/…, the OpenAI-compatible /v1/…, /v1/invoke). Credentials
// are never allowed (callers authenticate with a bearer key, not cookies), so `*` is safe. The
// management API (everything else under /api) stays same-origin: no CORS headers, and its
// preflights find no route.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** The first path segments after /api/app/{slug}/ that callers use (Dify's Service API and the upload). */
const CALLER_SEGMENTS = new Set([
  'completion-messages',
  'chat-messages',
  'workflows',
  'file-upload',
  'files',
  'parameters',
  'info',
  'meta',
  'site',
  'conversations',
  'messages',
  'openapi.json',
]);

const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Max-Price-Cents', 'X-Max-Price'];
const EXPOSED_HEADERS = [
  'Retry-After',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Idempotent-Replayed',
  'WWW-Authenticate',
  'X-Request-Id',
  'X-Task-Id',
];
/** Set on every caller answer: joined once. */
const EXPOSED_HEADER_LIST = EXPOSED_HEADERS.join(', ');
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/** True for a path callers reach from browsers. */
export function isCallerPath(url: string): boolean {
  const path = url.split('?', 1)[0]!;
  if (path.startsWith('/v1/')) return true;
  const match = /^\/api\/app\/[^/]+\/([^/]+)/.exec(path);
  return match !== null && CALLER_SEGMENTS.has(match[1]!);
}

function allowOrigin(reply: FastifyReply) {
  reply.header('Access-Control-Allow-Origin', '*').header('Access-Control-Expose-Headers', EXPOSED_HEADER_LIST);
}

export function registerCallerCors(app: FastifyInstance) {
  // Every answer of a caller path, errors and streams included (streams copy the reply's headers).
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (isCallerPath(request.url)) allowOrigin(reply);
    done();
  });

  const preflight = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!isCallerPath(request.url)) return reply.callNotFound();
    // The listed headers, plus whatever else the page asks for (clients add their own, e.g. x-stainless-*).
    const requested = String(request.headers['access-control-request-headers'] ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '' && HEADER_NAME.test(name) && !ALLOWED_HEADERS.some((allowed) => allowed.toLowerCase() === name.toLowerCase()));
    return reply
      .status(204)
      .header('Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS')
      .header('Access-Control-Allow-Headers', [...ALLOWED_HEADERS, ...requested].join(', '))
      .header('Access-Control-Max-Age', 86_400)
      .header('Vary', 'Access-Control-Request-Headers')
      .send();
  };
  app.options('/v1/*', preflight);
  app.options('/api/app/:slug/*', preflight);
}
