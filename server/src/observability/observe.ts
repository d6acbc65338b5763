// Seeing inside a running process (issue 58): the HTTP requests' metrics and server spans, the
// trace ids in the request log, /metrics (on the main port behind METRICS_TOKEN, or on METRICS_PORT),
// and the figures read at scrape time: the money's health (money-health.ts) and the database pool.
// app.ts registers it before any route; the paid call's own metrics and spans are the gateway's and
// billing's (platform/metrics.ts, platform/tracing.ts).
import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest, onRequestHookHandler, onResponseHookHandler } from 'fastify';
import type { Database } from '../db/client.ts';
import type { Config } from '../platform/config.ts';
import type { Metrics } from '../platform/metrics.ts';
import { endFailed, type Span, type Tracing } from '../platform/tracing.ts';
import { type JournalFigures, registerMoneyHealth } from './money-health.ts';

/** Probes and the metrics scrape are not traced: they would drown the paid calls. */
const UNTRACED = new Set(['/livez', '/readyz', '/metrics']);

export interface ObservabilityOptions {
  config: Config;
  db: Database;
  metrics: Metrics | null;
  tracing: Tracing | null;
  /** This process's answered calls waiting for their settlement (billing/paid-call/service.ts). */
  journal: () => JournalFigures;
  /** How often the money's health is read from the database at most (default once a minute). */
  healthEveryMs?: number;
}

/** Registers the hooks and /metrics; returns what must be started and stopped with the server. */
export function registerObservability(app: FastifyInstance, { config, db, metrics, tracing, journal, healthEveryMs = 60_000 }: ObservabilityOptions) {
  app.decorateRequest('callSpan', null);
  // Per route, with its template known when the route is added: Fastify's request.routeOptions builds
  // an object at each read, which a paid call should not pay for. Routes added after this (all of
  // them: app.ts registers it first) get the hooks; a request no route matched is not counted.
  const startSpanOf = (route: string, method: string | string[]): onRequestHookHandler | null => {
    if (!tracing) return null;
    // A route of one method (nearly all) names its spans with one string made here, not one per request.
    const only = typeof method === 'string' ? `${method} ${route}` : null;
    return (request, reply, done) => {
      const span = tracing.startRequest(only ?? `${request.method} ${route}`, request.headers);
      span.setAttribute('http.request.method', request.method);
      span.setAttribute('http.route', route);
      span.setAttribute('tollbooth.request_id', request.id);
      request.callSpan = span;
      // The request's log lines (the route's and Fastify's own "request completed") carry its trace.
      const log = traceLogger(request.log, span);
      request.log = log;
      reply.log = log;
      done();
    };
  };
  const endSpan = (request: FastifyRequest, status: number) => {
    const span = request.callSpan;
    if (!span) return;
    request.callSpan = null;
    span.setAttribute('http.response.status_code', status);
    if (status >= 500) endFailed(span, String(status));
    else span.end();
  };
  if (metrics || tracing) {
    app.addHook('onRoute', (route) => {
      const url = route.url;
      const record = metrics?.route(url) ?? null;
      const observe: onResponseHookHandler = (request, reply, done) => {
        const status = reply.statusCode;
        record?.(request.method, status, reply.elapsedTime / 1000);
        endSpan(request, status);
        done();
      };
      route.onResponse = route.onResponse ? [...[route.onResponse].flat(), observe] : [observe];
      const startSpan = UNTRACED.has(url) ? null : startSpanOf(url, route.method);
      if (startSpan) route.onRequest = route.onRequest ? [startSpan, ...[route.onRequest].flat()] : [startSpan];
    });
  }
  if (!metrics) return { start: async () => {}, stop: async () => {} };

  registerMoneyHealth(metrics, db, journal, healthEveryMs);
  // PostgreSQL's pool (DATABASE_URL); the embedded database has none, and the family no samples.
  const poolStats = db.poolStats?.bind(db) ?? null;
  metrics.gauge('tollbooth_db_pool_connections', 'PostgreSQL pool connections in use and idle, and queries waiting for one', ['state'], (gauge) => {
    if (!poolStats) return;
    const { total, idle, waiting } = poolStats();
    gauge.set({ state: 'in_use' }, total - idle);
    gauge.set({ state: 'idle' }, idle);
    gauge.set({ state: 'waiting' }, waiting);
  });

  const token = config.metrics.token;
  const authorized = (header: string | string[] | undefined): boolean => {
    if (token === null) return true;
    if (typeof header !== 'string' || !header.startsWith('Bearer ')) return false;
    const given = Buffer.from(header.slice(7));
    const wanted = Buffer.from(token);
    return given.length === wanted.length && timingSafeEqual(given, wanted);
  };
  const scrape = () => metrics.registry.metrics();

  // On the main port only behind the token: without one, /metrics there is not a route at all.
  if (token !== null) {
    app.get('/metrics', { schema: { hide: true }, config: { paidCall: true } }, async (request, reply) => {
      if (!authorized(request.headers.authorization)) {
        return reply
          .status(401)
          .header('WWW-Authenticate', 'Bearer realm="metrics"')
          .send({ code: 'unauthorized', message: 'Send Authorization: Bearer <METRICS_TOKEN>', status: 401 });
      }
      return reply
        .header('Content-Type', metrics.registry.contentType)
        .header('Cache-Control', 'no-store')
        .send(await scrape());
    });
  }

  let server: Server | null = null;
  return {
    /** Opens METRICS_PORT on METRICS_HOST (127.0.0.1 by default), when set. */
    async start() {
      if (config.metrics.port === null) return;
      server = createServer((request, response) => {
        const path = (request.url ?? '').split('?')[0];
        if (request.method !== 'GET' || path !== '/metrics') {
          response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: GET /metrics\n');
          return;
        }
        if (!authorized(request.headers.authorization)) {
          response
            .writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer realm="metrics"' })
            .end('Send Authorization: Bearer <METRICS_TOKEN>\n');
          return;
        }
        scrape().then(
          (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' }).end(text),
          (error: unknown) => {
            app.log.error({ err: error }, 'collecting metrics failed');
            response.writeHead(500, { 'content-type': 'text/plain' }).end('collecting metrics failed\n');
          },
        );
      });
      const listening = server;
      await new Promise<void>((resolve, reject) => {
        listening.once('error', reject);
        listening.listen(config.metrics.port!, config.metrics.host, () => {
          listening.off('error', reject);
          resolve();
        });
      });
    },
    async stop() {
      const open = server;
      server = null;
      if (!open) return;
      open.closeAllConnections();
      await new Promise<void>((resolve) => open.close(() => resolve()));
    },
  };
}

const LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace']);
const quiet = () => {};

/**
 * The request's logger with trace_id and span_id bound, made only when a line is written: a pino
 * child per request cost a traced call ~13 µs (bench, decision 0114), and most requests write no line
 * at the usual level. A level method whose level is off answers a no-op without making it. The
 * Proxy's handler is an instance of a class (its traps on the prototype): no closures per request.
 */
class TraceLogHandler implements ProxyHandler<FastifyBaseLogger> {
  #bound: FastifyBaseLogger | null = null;
  constructor(
    readonly base: FastifyBaseLogger,
    readonly span: Span,
  ) {}
  real(): FastifyBaseLogger {
    if (!this.#bound) {
      const context = this.span.spanContext();
      this.#bound = this.base.child({ trace_id: context.traceId, span_id: context.spanId });
    }
    return this.#bound;
  }
  get(_target: FastifyBaseLogger, property: string | symbol): unknown {
    const base = this.base as { isLevelEnabled?: (level: string) => boolean };
    if (typeof property === 'string' && LEVELS.has(property) && base.isLevelEnabled && !base.isLevelEnabled(property)) return quiet;
    const real = this.real();
    const value = Reflect.get(real, property) as unknown;
    return typeof value === 'function' ? value.bind(real) : value;
  }
  set(_target: FastifyBaseLogger, property: string | symbol, value: unknown): boolean {
    return Reflect.set(this.real(), property, value);
  }
}

function traceLogger(base: FastifyBaseLogger, span: Span): FastifyBaseLogger {
  return new Proxy(base, new TraceLogHandler(base, span));
}
