// One door per caller protocol, one adapter behind them (issue 56). Dify's routes (completion- and
// chat-messages, /v1/invoke, workflows/run), the embed widget's calls, OpenAI's Chat Completions and
// the Responses API each turn their request into the gateway's call: the app's slug, the mode, the
// body in the gateway's terms and the payer their route authenticated. What every door then does
// alike is written here once: the Idempotency-Key, X-Max-Price-Cents and X-Max-Price headers (and an OpenAI body's max_price), the call chain
// (http/call-chain.ts), the RateLimit headers (on a refusal too, with Retry-After),
// Idempotent-Replayed and X-Price-Cents, watching the caller's connection, and how a stream pings,
// reports a failure and ends. What differs is each protocol's answer, which stays with its door.
//
// Nothing here adds work to a paid call over what each route did inline (decision 0058; the bench
// measures it): plain functions, the two closures the routes made already (the call chain, the rate
// limit callback), and no await of their own: a route awaits the gateway's prepare() itself.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { refuseUnacceptable } from '../http/accept.ts';
import { hopHeaderOf } from '../http/call-chain.ts';
import { type CallerConnection, watchCaller } from '../http/caller-connection.ts';
import { PAID_CALL_ROUTE } from '../http/settled-reads.ts';
import { answerPriceCents } from '../platform/call-rules.ts';
import { AppError } from '../platform/errors.ts';
import type { CallPath } from '../platform/metrics.ts';
import type { RateLimitDecision } from '../platform/rate-limit.ts';
import { endFailed, type Span } from '../platform/tracing.ts';
import type { CallAnswer, CallBody, CallMode, CallPayer, GatewayService, Preparation, PreparedCall } from './service.ts';

/** On every paid answer: the price charged for it, in integer cents (0 for your own apps and demo answers). */
export const PRICE_HEADER = 'X-Price-Cents';

/** How often an open stream sends its keep-alive (Dify's `event: ping`, OpenAI's `: ping` comment). */
const PING_INTERVAL_MS = 10_000;

/**
 * The options of a route that takes a paid call: its schema; a paid call does not wait for earlier
 * calls' settlements (http/settled-reads.ts); a caller that accepts neither JSON nor an event stream
 * is answered 406 before anything else (http/accept.ts).
 */
export function paidCallRoute<Schema>(schema: Schema) {
  return { schema, config: PAID_CALL_ROUTE, onRequest: refuseUnacceptable };
}

/** A door's way to authenticate its payer: sets request.auth, or throws why it cannot. */
export type Authenticate = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * Who pays for the call, as the door's authentication found out. A failure is not thrown here: the
 * gateway reports it once the app is known (a call to an unknown app is a 404 whatever its
 * credentials, and a refused caller is recorded against the app it called).
 */
export async function identifyPayer(request: FastifyRequest, reply: FastifyReply, authenticate: Authenticate, gateway?: GatewayService): Promise<CallPayer> {
  // Traced, the authenticate span is ended here rather than by traceAuthenticate: no closure and no
  // second async function (a promise and its microtasks) on a traced call's path.
  const span = authenticateSpan(request, gateway);
  try {
    await authenticate(request, reply);
    span?.end();
    return { auth: request.auth };
  } catch (failure) {
    if (span) endAuthenticateFailed(span, failure);
    return { failure };
  }
}

/** The call's authenticate span when the call is traced, else null. */
const authenticateSpan = (request: FastifyRequest, gateway: GatewayService | undefined): Span | null =>
  request.callSpan && gateway?.tracing ? gateway.tracing.child(request.callSpan, 'authenticate') : null;

/** An authentication that failed ends its span with the refusal's code. */
const endAuthenticateFailed = (span: Span, failure: unknown) => endFailed(span, failure instanceof AppError ? failure.code : 'internal_error');

/**
 * Runs a door's authentication as the authenticate span of the call's trace (observability/,
 * platform/tracing.ts), when the call is traced; a failure ends the span with its code and is thrown on.
 */
export async function traceAuthenticate<T>(request: FastifyRequest, gateway: GatewayService | undefined, authenticate: () => Promise<T>): Promise<T> {
  const span = authenticateSpan(request, gateway);
  if (!span) return await authenticate();
  try {
    const found = await authenticate();
    span.end();
    return found;
  } catch (failure) {
    endAuthenticateFailed(span, failure);
    throw failure;
  }
}

/**
 * The gateway's prepare() for the call a door's request asks for: checks everything that can be
 * checked before money moves, then reserves the price (gateway/service.ts). The RateLimit headers go
 * on the reply as soon as the call is counted, so a call refused after that carries them too.
 */
export function preparePaidCall(
  gateway: GatewayService,
  request: FastifyRequest,
  reply: FastifyReply,
  slug: string,
  mode: CallMode,
  payer: CallPayer,
  body: CallBody,
  /** performance.now() when the call began. */
  startedAt: number,
  /** The door (metrics' path label): Dify's routes and /v1/invoke, OpenAI's Chat Completions, the Responses API, the embed widget. */
  path: CallPath,
): Promise<Preparation> {
  const idempotencyKey = request.headers['idempotency-key'];
  return gateway.prepare({
    slug,
    mode,
    payer,
    body,
    idempotencyKey: typeof idempotencyKey === 'string' ? idempotencyKey : null,
    maxPriceMicros: callerCeilingMicros(request),
    startedAt,
    hop: () => hopHeaderOf(request),
    onRateLimit: (decision) => setRateLimitHeaders(reply, decision),
    path,
    span: request.callSpan,
  });
}

/**
 * The caller's ceiling for this call, in micro-dollars (issue 60): the lowest of X-Max-Price-Cents,
 * X-Max-Price (dollars) and an OpenAI body's max_price (dollars); null when none is sent. The
 * API key's own max_price_cents is the gateway's to add (price-cap.ts).
 */
function callerCeilingMicros(request: FastifyRequest): number | null {
  const ceilings: number[] = [];
  const cents = request.headers['x-max-price-cents'];
  if (typeof cents === 'number') ceilings.push(cents * 10_000);
  const dollars = request.headers['x-max-price'];
  if (typeof dollars === 'string') ceilings.push(dollarsTextToMicros(dollars));
  const body = request.body as { max_price?: unknown } | null | undefined;
  if (body && typeof body === 'object' && typeof body.max_price === 'number') ceilings.push(Math.floor(body.max_price * 1_000_000 + 1e-6));
  return ceilings.length === 0 ? null : Math.min(...ceilings);
}

/** "0.05" → 50,000: decimal dollars (the header's pattern, at most 6 decimals) to micro-dollars, exactly. */
function dollarsTextToMicros(text: string): number {
  const [whole = '0', fraction = ''] = text.split('.');
  return Number(whole) * 1_000_000 + Number(fraction.padEnd(6, '0').slice(0, 6));
}

/** The limiter's decision on the reply; a refusal also says when to retry. */
function setRateLimitHeaders(reply: FastifyReply, decision: RateLimitDecision) {
  if (!decision.allowed) reply.header('Retry-After', decision.resetSeconds);
  reply.header('RateLimit-Limit', decision.limit).header('RateLimit-Remaining', decision.remaining).header('RateLimit-Reset', decision.resetSeconds);
}

/** A stored answer replayed for its Idempotency-Key: it says so, and what it was charged. */
export function replayHeaders(reply: FastifyReply, answer: CallAnswer): FastifyReply {
  return reply.header('Idempotent-Replayed', 'true').header(PRICE_HEADER, answerPriceCents(answer));
}

/**
 * Opens a prepared call: its rate limit and price on the reply, and the caller's connection watched,
 * so the upstream call is aborted when the caller goes away (or went away already) before the answer
 * is complete. The door releases the connection once its answer is written.
 */
export function openCall(reply: FastifyReply, call: PreparedCall): CallerConnection {
  setRateLimitHeaders(reply, call.rateLimit);
  reply.header(PRICE_HEADER, call.charge.priceCents);
  return watchCaller(reply);
}

/** Keeps an open stream alive: writes `ping` every 10 s until endStream. */
export function startPings(reply: FastifyReply, ping: string): NodeJS.Timeout {
  return setInterval(() => reply.raw.write(ping), PING_INTERVAL_MS);
}

/** What a failed stream tells its caller: our error as it is; anything else is logged and told as an internal error. */
export function streamFailure(reply: FastifyReply, error: unknown, logMessage = 'stream failed'): AppError {
  if (error instanceof AppError) return error;
  reply.log.error({ err: error }, logMessage);
  return new AppError('internal_error', 'Internal server error');
}

/** Ends a stream: its pings stop, its connection is no longer watched, the answer ends. */
export function endStream(reply: FastifyReply, connection: CallerConnection, pings: NodeJS.Timeout): void {
  clearInterval(pings);
  connection.release();
  reply.raw.end();
}
