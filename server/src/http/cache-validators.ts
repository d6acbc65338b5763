// Cache-Control and ETag for documents that change rarely and are read often: the public catalog,
// the per-app OpenAPI documents and (through oidc/provider.ts) the JWKS. The ETag is a weak hash of
// the serialized body, so it needs no version column; a matching If-None-Match answers 304 without
// the body (the work of building it is still done, the bytes on the wire are not).
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A weak ETag of a serialized body. */
export function weakEtag(body: string | Buffer): string {
  return `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/** True when an If-None-Match header names this ETag (weak comparison, as RFC 9110 asks for GET). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || bare(tag) === bare(etag));
}

export interface CacheOptions {
  /** The Cache-Control header for this request, e.g. 'public, max-age=60'. */
  cacheControl: (request: FastifyRequest) => string;
  /** Headers a shared cache must key on besides the URL (e.g. Authorization). */
  vary?: string;
}

/**
 * A route-level onSend hook: on a 200, sets Cache-Control and an ETag of the body, and answers 304
 * with no body when the client's If-None-Match already has it.
 */
export function cacheValidators(options: CacheOptions) {
  return async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (reply.statusCode !== 200 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) return payload;
    const etag = weakEtag(payload);
    reply.header('ETag', etag);
    reply.header('Cache-Control', options.cacheControl(request));
    if (options.vary) reply.header('Vary', options.vary);
    if (etagMatches(request.headers['if-none-match'], etag)) {
      reply.code(304);
      reply.removeHeader('content-type');
      reply.removeHeader('content-length');
      return '';
    }
    return payload;
  };
}
