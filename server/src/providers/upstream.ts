// What the three HTTP providers share: one upstream call's deadline and cancellation, the POST,
// reading a JSON answer or a stream, and turning every failure into the error the gateway expects.
import { AppError } from '../platform/errors.ts';
import { type AbortHook, type CallerSignal, UPSTREAM_ABORT } from './abort-hook.ts';
import type { FetchFunction, ModelRequest, ModelStreamEvent, ModelUsage } from './types.ts';

/** The header that carries a call's chain of Tollbooth hops to an upstream that may be another Tollbooth (http/call-chain.ts reads it). */
export const HOP_HEADER = 'tollbooth-hop';

/** Thrown when the caller's signal aborts; its name is 'AbortError' like fetch's own. */
export class ProviderAbortError extends Error {
  constructor(message = 'The caller aborted the model request', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AbortError';
  }
}

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

export interface UpstreamCall extends AbortHook {
  /** Aborts on the deadline, on the caller's signal, or on abort(); made when first read (our own client listens through the AbortHook instead). */
  readonly signal: AbortSignal;
  /** The error to throw for whatever a fetch or a body read threw, given why the call ended. */
  fail(error: unknown): Error;
  /** Tears the upstream request down (the consumer stopped reading early). */
  abort(): void;
  /** Clears the deadline timer and the listener on the caller's signal; call it in a finally. */
  dispose(): void;
}

/**
 * One controller per upstream call, aborted by whichever comes first: the deadline or the caller.
 * This is AbortSignal.any([signal, AbortSignal.timeout(ms)]) with two differences that matter on
 * the hot path: the timer is cleared as soon as the call ends instead of living for timeoutMs, and
 * the listener on the caller's (possibly long-lived) signal is removed. It is a class listening as
 * an object (handleEvent) and timing out through a shared function, so a call makes no closures.
 */
export function startUpstreamCall(label: string, request: Pick<ModelRequest, 'signal' | 'timeoutMs'>): UpstreamCall {
  return new Upstream(label, request);
}

class Upstream implements UpstreamCall {
  #controller: AbortController | null = null;
  /** Our own client's request, told when the call ends (AbortHook). */
  #listener: { handleEvent(): void } | null = null;
  readonly #label: string;
  readonly #request: Pick<ModelRequest, 'signal' | 'timeoutMs'>;
  readonly #timer: ReturnType<typeof setTimeout>;
  #endedBy: 'timeout' | 'caller' | 'consumer' | null = null;
  #reason: unknown = undefined;

  constructor(label: string, request: Pick<ModelRequest, 'signal' | 'timeoutMs'>) {
    this.#label = label;
    this.#request = request;
    // setTimeout fires at once for delays beyond 2^31 - 1 ms, so longer ones are capped there (~24 days).
    const delay = Math.min(Math.max(Number.isFinite(request.timeoutMs) ? request.timeoutMs : 0, 0), 2_147_483_647);
    this.#timer = setTimeout(deadlinePassed, delay, this);
    if (request.signal.aborted) this.handleEvent();
    else request.signal.addEventListener('abort', this, { once: true });
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#endedBy !== null) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  get aborted(): boolean {
    return this.#endedBy !== null;
  }

  get reason(): unknown {
    return this.#reason;
  }

  onAbort(listener: { handleEvent(): void } | null): void {
    this.#listener = listener;
  }

  /** The caller's signal aborted (this object is its listener). */
  handleEvent(): void {
    this.end('caller', this.#request.signal.reason);
  }

  end(why: 'timeout' | 'caller' | 'consumer', reason: unknown): void {
    if (this.#endedBy !== null) return;
    this.#endedBy = why;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const listener = this.#listener;
    this.#listener = null;
    listener?.handleEvent();
  }

  timeout(): void {
    this.end('timeout', new DOMException(`${this.#label} did not answer within ${this.#request.timeoutMs} ms`, 'TimeoutError'));
  }

  fail(error: unknown): Error {
    if (this.#endedBy === 'timeout') return new AppError('provider_timeout', `${this.#label} did not answer within ${this.#request.timeoutMs} ms`);
    if (this.#endedBy === 'caller' || this.#endedBy === 'consumer') return new ProviderAbortError(undefined, { cause: error });
    if (error instanceof AppError) return error;
    return new AppError('provider_error', `Could not reach ${this.#label}: ${describeNetworkError(error)}`);
  }

  abort(): void {
    this.end('consumer', new ProviderAbortError('The model answer was no longer needed'));
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#request.signal.removeEventListener('abort', this);
  }
}

const deadlinePassed = (call: Upstream) => call.timeout();

/** Throws the caller's abort before any work starts. */
export function throwIfCallerAborted(signal: CallerSignal): void {
  if (signal.aborted) throw new ProviderAbortError(undefined, { cause: signal.reason });
}

export interface PostJsonOptions {
  fetch: FetchFunction;
  call: UpstreamCall;
  label: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  /** Strings that must never appear in an error message (API keys). */
  secrets: readonly (string | null | undefined)[];
  /** The call's W3C traceparent (tracing on), sent as the traceparent header. */
  traceparent?: string;
}

/** POSTs a JSON body; resolves with a 2xx response, or throws provider_error naming the upstream status and message. */
export async function postJson(options: PostJsonOptions): Promise<Response> {
  const { call, label } = options;
  let response: Response;
  try {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...options.headers };
    if (options.traceparent) headers.traceparent = options.traceparent;
    response = await options.fetch(options.url, {
      method: 'POST',
      headers,
      body: JSON.stringify(options.body),
      // Our own client (pooled-fetch.ts) listens through the hook; any other fetch reads the signal, made then.
      get signal() {
        return call.signal;
      },
      [UPSTREAM_ABORT]: call,
    } as RequestInit);
  } catch (error) {
    throw call.fail(error);
  }
  if (response.ok) return response;
  let detail = '';
  try {
    detail = upstreamErrorMessage(await response.text());
  } catch (error) {
    throw call.fail(error);
  }
  const message = `${label} answered HTTP ${response.status}${detail ? `: ${detail}` : ''}`;
  throw new AppError('provider_error', redactSecrets(message, options.secrets));
}

/**
 * One blocking upstream call, the same for every provider: deadline and cancellation, the POST,
 * the JSON body, and every failure turned into the gateway's error.
 */
export async function completeUpstream<T>(
  label: string,
  request: Pick<ModelRequest, 'signal' | 'timeoutMs'>,
  post: (call: UpstreamCall) => Promise<Response>,
  parse: (body: unknown) => T,
): Promise<T> {
  throwIfCallerAborted(request.signal);
  const call = startUpstreamCall(label, request);
  try {
    return parse(await readJsonBody(await post(call), call, label));
  } catch (error) {
    throw call.fail(error);
  } finally {
    call.dispose();
  }
}

/**
 * One streamed upstream call, the same for every provider: deadline and cancellation, the POST, a
 * body to read, every failure while reading turned into the gateway's error, and the upstream
 * request torn down unless the stream reached its end (its consumer stopped early, or it failed).
 * `read` yields the answer's events from the body and returns the check of the stream's end, run
 * once the body is read: it throws what the stream lacked (its end marker, its usage) or gives the
 * usage of the closing `done` event.
 */
export async function* streamUpstream(
  label: string,
  request: Pick<ModelRequest, 'signal' | 'timeoutMs'>,
  post: (call: UpstreamCall) => Promise<Response>,
  read: (body: NonNullable<Response['body']>) => AsyncGenerator<ModelStreamEvent, () => ModelUsage>,
): AsyncGenerator<ModelStreamEvent> {
  throwIfCallerAborted(request.signal);
  const call = startUpstreamCall(label, request);
  let finished = false;
  try {
    let usageAtEnd: () => ModelUsage;
    try {
      const response = await post(call);
      if (!response.body) throw malformedAnswer(label, 'the stream has no body');
      usageAtEnd = yield* read(response.body);
    } catch (error) {
      throw call.fail(error);
    }
    const usage = usageAtEnd();
    finished = true;
    yield { type: 'done', usage };
  } finally {
    if (!finished) call.abort();
    call.dispose();
  }
}

/** Reads a whole JSON body; a body that is not JSON is a provider_error. */
export async function readJsonBody(response: Response, call: UpstreamCall, label: string): Promise<unknown> {
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw call.fail(error);
  }
  return parseUpstreamJson(text, label);
}

export function parseUpstreamJson(text: string, label: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw malformedAnswer(label, `the body is not JSON (${JSON.stringify(text.slice(0, 60))})`);
  }
}

export function malformedAnswer(label: string, what: string): AppError {
  return new AppError('provider_error', `${label} answered in an unexpected format: ${what}`);
}

/** OpenAI, Anthropic and Gemini all put a readable message at error.message. */
function upstreamErrorMessage(body: string): string {
  let message = body;
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof parsed.error === 'object' && typeof parsed.error?.message === 'string') message = parsed.error.message;
    else if (typeof parsed.error === 'string') message = parsed.error;
    else if (typeof parsed.message === 'string') message = parsed.message;
  } catch {
    // Not JSON: keep the start of the text.
  }
  message = message.replace(/\s+/g, ' ').trim();
  return message.length > 300 ? `${message.slice(0, 300)}…` : message;
}

export function redactSecrets(text: string, secrets: readonly (string | null | undefined)[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) result = result.split(secret).join('[redacted]');
  }
  return result;
}

/** undici reports "fetch failed" with the real reason (ECONNREFUSED, ENOTFOUND…) in its cause. */
function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  if (cause && typeof cause === 'object') {
    if (typeof cause.code === 'string') return `${error.message} (${cause.code})`;
    if (typeof cause.message === 'string') return `${error.message} (${cause.message})`;
  }
  return error.message;
}

/** The base URL without trailing slashes, so paths can be appended with one. */
export function trimBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '');
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A usage number from an upstream body: a non-negative integer, or null when absent or wrong. */
export function tokenCount(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;
}
