// Serves the built single-page app: hashed assets with long caching, and index.html for every
// other non-API path so client-side routes (and the SPA's own 404 page) work on reload. Files are
// sent in the encoding the browser accepts from the build's precompressed copies (file.br,
// file.gz; web/build/precompress.ts), with Vary: Accept-Encoding.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import type { RouteTable } from '../http/method-not-allowed.ts';
import type { Config } from '../platform/config.ts';
import { contentSecurityPolicy, setHtmlSecurityHeaders } from './security-headers.ts';

const API_PREFIXES = ['/api/', '/oidc/', '/v1/'];
/** Operators' paths: never the app's page, so a scraper or a probe pointed at a process without them gets a 404, not HTML. */
const OPERATIONS_PATHS = new Set(['/metrics', '/livez', '/readyz']);
/** The build's compressed copies are sent for their originals, never asked for by name. */
const COMPRESSED_COPY = /\.(?:br|gz)$/;

export async function serveWebApp(app: FastifyInstance, config: Config, routes?: RouteTable) {
  const dist = config.webDistDir;
  let indexHtml: Buffer | null = null;
  let indexEncoded: Record<'br' | 'gzip', Buffer> | null = null;
  const csp = contentSecurityPolicy(config);
  if (dist) {
    indexHtml = readFileSync(path.join(dist, 'index.html'));
    // The app shell for client-side routes, compressed once at start (the build's copies may be absent).
    indexEncoded = {
      br: brotliCompressSync(indexHtml, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
      gzip: gzipSync(indexHtml, { level: 9 }),
    };
    await app.register(fastifyStatic, {
      root: dist,
      wildcard: false,
      index: false,
      preCompressed: true,
      // No route of their own for the copies: /x.js.br is a 404 like any missing file.
      globIgnore: ['**/*.br', '**/*.gz'],
      setHeaders(res, sentPath) {
        const filePath = sentPath.replace(COMPRESSED_COPY, '');
        // Vite names every file under assets/ by its content hash: a new build means new names.
        const immutable = filePath.includes(`${path.sep}assets${path.sep}`);
        res.header('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
        res.header('X-Content-Type-Options', 'nosniff');
        if (filePath.endsWith('.html')) {
          res.header('Content-Security-Policy', csp);
          res.header('X-Frame-Options', 'DENY');
          res.header('Referrer-Policy', 'strict-origin-when-cross-origin');
        }
      },
    });
  }

  app.setNotFoundHandler((request, reply) => {
    const pathname = request.url.split('?')[0] ?? '/';
    const allowed = routes?.allowedMethods(pathname);
    if (allowed) {
      return reply
        .status(405)
        .header('Allow', allowed.join(', '))
        .send({
          code: 'method_not_allowed',
          message: `${request.method} is not allowed on ${pathname}; use ${allowed.join(', ')}`,
          status: 405,
          request_id: request.id,
        });
    }
    const isApi = API_PREFIXES.some((prefix) => pathname.startsWith(prefix)) || pathname === '/api' || pathname === '/oidc' || OPERATIONS_PATHS.has(pathname);
    // A path naming a file (robots.txt, favicon.ico, openapi.json, a missing asset) that is not
    // there is a real 404: only client-side routes, which never have an extension, get the app.
    const isFile = /\.[A-Za-z0-9]+$/.test(pathname.slice(pathname.lastIndexOf('/') + 1));
    if (!isApi && !isFile && indexHtml && (request.method === 'GET' || request.method === 'HEAD')) {
      setHtmlSecurityHeaders(reply, csp).header('Cache-Control', 'no-cache').header('Vary', 'Accept-Encoding').type('text/html; charset=utf-8');
      const encoding = indexEncoded ? preferredEncoding(request.headers['accept-encoding']) : null;
      if (encoding && indexEncoded) return reply.header('Content-Encoding', encoding).send(indexEncoded[encoding]);
      return reply.send(indexHtml);
    }
    if (pathname.startsWith('/v1/')) {
      // The OpenAI-compatible API answers in OpenAI's error envelope, unknown routes included.
      return reply.status(404).send({
        error: { message: `Unknown request URL: ${request.method} ${pathname}`, type: 'invalid_request_error', code: 'unknown_url', param: null },
      });
    }
    return reply.status(404).send({ code: 'not_found', message: `Route ${request.method} ${pathname} not found`, status: 404, request_id: request.id });
  });
}

/** br, else gzip, when the client's Accept-Encoding allows it (q=0 refuses); else null (identity). */
export function preferredEncoding(acceptEncoding: string | string[] | undefined): 'br' | 'gzip' | null {
  const header = Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : (acceptEncoding ?? '');
  const allowed = new Set<string>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.split(';').map((piece) => piece.trim().toLowerCase());
    if (!name || params.some((param) => /^q=0(?:\.0*)?$/.test(param))) continue;
    allowed.add(name);
  }
  if (allowed.has('br')) return 'br';
  if (allowed.has('gzip') || allowed.has('x-gzip')) return 'gzip';
  return null;
}
