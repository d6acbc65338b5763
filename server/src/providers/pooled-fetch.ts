// The providers' default HTTP client: undici's dispatcher over one keep-alive connection pool per
// process, shaped as the small part of fetch's Response the providers use (ok, status, text(),
// json(), body). The benchmark measured fetch at ~0.2 ms of CPU per call against an instant
// upstream; undici's request() at ~0.03 ms; and the paid call path pays this on every call.
// request() still builds a Node Readable for every answer, parses every response header into an
// object and runs each callback in an async resource: the handler here does none of that
// (docs/decisions/0040-half-the-cpu-per-paid-call.md). A blocking answer's chunks are gathered and
// decoded once; a streamed body becomes a web stream only when it is read as one, paused while its
// reader is behind. The caller's signal aborts the request at any point, as fetch's does.
import { Agent, type Dispatcher } from 'undici';
import { type AbortHook, abortHookOf } from './abort-hook.ts';
import type { FetchFunction } from './types.ts';

const POOL_OPTIONS = { keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, connections: 256 };
const pool = new Agent(POOL_OPTIONS);

export const pooledFetch: FetchFunction = (input, init) => fetchVia(pool, input, init);

/** The same client over a pool of its own whose connections resolve names with `lookup` (a creator's own provider URL: providers/guarded-fetch.ts). */
export function createPooledFetch(lookup: unknown): FetchFunction {
  const own = new Agent({ ...POOL_OPTIONS, connections: 16, connect: { lookup: lookup as never } });
  return (input, init) => fetchVia(own, input, init);
}

/** What the providers read of an answer (a subset of fetch's Response). */
interface PooledResponse {
  ok: boolean;
  status: number;
  text(): Promise<string>;
  json(): Promise<unknown>;
  readonly body: ReadableStream<Uint8Array>;
}

/** A provider calls the same few URLs again and again: each is parsed once. */
const targets = new Map<string, { origin: string; path: string }>();
const targetOf = (input: Parameters<FetchFunction>[0]) => {
  const text = typeof input === 'string' ? input : String(input);
  let target = targets.get(text);
  if (!target) {
    const url = new URL(text);
    target = { origin: url.origin, path: `${url.pathname}${url.search}` };
    if (targets.size >= 256) targets.clear();
    targets.set(text, target);
  }
  return target;
};

const fetchVia = (dispatcher: Agent, input: Parameters<FetchFunction>[0], init: Parameters<FetchFunction>[1]): Promise<Response> => {
  // An upstream call's own hook (upstream.ts) where there is one, so its signal is never made.
  const abort: AbortHook | AbortSignal | null = abortHookOf(init) ?? init?.signal ?? null;
  // A bad URL or request rejects the promise, as fetch's would, rather than throwing.
  return new Promise<Response>((resolve, reject) => {
    if (abort?.aborted) {
      reject(abortReason(abort));
      return;
    }
    const target = targetOf(input);
    const answer = new Answer(abort, resolve, reject);
    try {
      dispatcher.dispatch(
        {
          origin: target.origin,
          path: target.path,
          method: (init?.method ?? 'GET') as Dispatcher.HttpMethod,
          headers: init?.headers as Record<string, string> | undefined,
          body: init?.body as string | undefined,
        },
        answer,
      );
    } catch (error) {
      answer.onError(error);
    }
  });
};

/** Up to this many chunks wait for a slow reader before the socket is paused. */
const STREAM_QUEUE = new CountQueuingStrategy({ highWaterMark: 16 });

const abortReason = (abort: AbortHook | AbortSignal): unknown => abort.reason ?? new DOMException('This operation was aborted', 'AbortError');
const isHook = (abort: AbortHook | AbortSignal): abort is AbortHook => 'onAbort' in abort;

/** A body read whole once it had all come: nothing waits for it. */
const READ = { resolve: () => {}, reject: () => {} };

/**
 * One upstream request as undici's dispatch handler (its core's own interface: onConnect,
 * onHeaders, onData, onComplete, onError) and, once the status is known, as the response.
 */
class Answer implements PooledResponse {
  ok = false;
  status = 0;
  #signal: AbortHook | AbortSignal | null;
  #resolve: ((response: Response) => void) | null;
  #reject: ((error: unknown) => void) | null;
  #abort: ((reason?: Error) => void) | null = null;
  #resume: (() => void) | null = null;
  /** Chunks received while nobody reads them as a stream. */
  #chunks: Buffer[] = [];
  #ended = false;
  #error: unknown = null;
  #whole: { resolve: (text: string) => void; reject: (error: unknown) => void } | null = null;
  #stream: ReadableStream<Uint8Array> | null = null;
  #controller: ReadableStreamDefaultController<Uint8Array> | null = null;

  constructor(signal: AbortHook | AbortSignal | null, resolve: (response: Response) => void, reject: (error: unknown) => void) {
    this.#signal = signal;
    this.#resolve = resolve;
    this.#reject = reject;
    // The answer itself listens (handleEvent): no closure per request.
    if (signal === null) return;
    if (isHook(signal)) signal.onAbort(this);
    else signal.addEventListener('abort', this, { once: true });
  }

  /** The caller's signal aborted. */
  handleEvent() {
    const reason = abortReason(this.#signal!);
    if (this.#abort) this.#abort(reason as Error);
    else this.#fail(reason);
  }

  // --- undici's dispatch handler --------------------------------------------------------------

  onConnect(abort: (reason?: Error) => void) {
    if (this.#signal?.aborted) abort(abortReason(this.#signal) as Error);
    else this.#abort = abort;
  }

  onHeaders(statusCode: number, _rawHeaders: unknown, resume: () => void) {
    // 1xx answers are informational: the real status follows.
    if (statusCode < 200) return true;
    this.status = statusCode;
    this.ok = statusCode >= 200 && statusCode < 300;
    this.#resume = resume;
    const settle = this.#resolve;
    this.#resolve = this.#reject = null;
    settle?.(this as unknown as Response);
    return true;
  }

  onData(chunk: Buffer) {
    // undici's parser reports an empty body piece when a paused answer resumes.
    if (chunk.length === 0) return true;
    if (this.#controller) {
      this.#controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      // The reader is behind: undici stops reading the socket until pull() resumes it.
      return (this.#controller.desiredSize ?? 1) > 0;
    }
    this.#chunks.push(chunk);
    return true;
  }

  onComplete() {
    this.#ended = true;
    this.#release();
    if (this.#controller) this.#controller.close();
    if (this.#whole) this.#whole.resolve(this.#takeText());
  }

  onError(error: unknown) {
    this.#fail(error);
  }

  // --- the response ---------------------------------------------------------------------------

  text(): Promise<string> {
    if (this.#stream) return Promise.reject(new TypeError('Body is unusable: it is being read as a stream'));
    if (this.#whole) return Promise.reject(new TypeError('Body is unusable: it has already been read'));
    if (this.#error !== null) return Promise.reject(this.#error);
    if (this.#ended) {
      this.#whole = READ;
      return Promise.resolve(this.#takeText());
    }
    return new Promise<string>((resolve, reject) => {
      this.#whole = { resolve, reject };
    });
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  get body(): ReadableStream<Uint8Array> {
    if (this.#stream) return this.#stream;
    const buffered = this.#chunks;
    this.#chunks = [];
    this.#stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          for (const chunk of buffered) controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if (this.#error !== null) controller.error(this.#error);
          else if (this.#ended) controller.close();
          else this.#controller = controller;
        },
        pull: () => {
          this.#resume?.();
        },
        cancel: (reason) => {
          this.#controller = null;
          if (!this.#ended && this.#error === null) this.#abort?.((reason ?? new DOMException('The body was cancelled', 'AbortError')) as Error);
        },
      },
      STREAM_QUEUE,
    );
    return this.#stream;
  }

  #takeText(): string {
    const chunks = this.#chunks;
    this.#chunks = [];
    return chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
  }

  #fail(error: unknown) {
    if (this.#error !== null || this.#ended) return;
    this.#error = error;
    this.#release();
    if (this.#reject) {
      const reject = this.#reject;
      this.#resolve = this.#reject = null;
      reject(error);
      return;
    }
    this.#chunks = [];
    if (this.#controller) {
      const controller = this.#controller;
      this.#controller = null;
      controller.error(error);
    }
    this.#whole?.reject(error);
  }

  #release() {
    const signal = this.#signal;
    this.#signal = null;
    if (signal === null) return;
    if (isHook(signal)) signal.onAbort(null);
    else signal.removeEventListener('abort', this);
  }
}
