// What the request log may show. Query strings under /oidc and /auth/callback carry authorization
// codes, ID tokens (id_token_hint), states and PKCE values: they are replaced by "?[redacted]".
import type { FastifyRequest } from 'fastify';

const SECRET_QUERY_PATHS = ['/oidc', '/auth/callback'];

export function redactUrl(url: string): string {
  const query = url.indexOf('?');
  if (query === -1) return url;
  const path = url.slice(0, query);
  const secret = SECRET_QUERY_PATHS.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
  return secret ? `${path}?[redacted]` : url;
}

/** Fastify's request serializer, with the URL redacted. */
export function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
