// A paid call's abort signal: it aborts once the caller's connection closes before the answer was
// written in full. The connection may close at any moment, also while the call is being prepared
// (authenticated, checked, its price reserved), before the route listens for it: a 'close' that
// already happened is never emitted again, so the call ran, was charged and was never delivered
// (issue 24, 1 in 20 blocking calls). watchCaller therefore also reads the connection's state.
//
// The signal is a CallerAbort of its own, not an AbortController's: Node's controller, its
// AbortSignal and the EventTarget's listener bookkeeping took 7-11 µs of every paid call in isolation,
// 3.5 % of the gateway's CPU in its profile, for a signal that almost never aborts (decision 0059).
import type { FastifyReply } from 'fastify';
import type { CallerSignal } from '../providers/abort-hook.ts';

export interface CallerConnection {
  /** Aborted once the caller went away before its answer was written in full, or by its abort() (Dify's stop endpoint). */
  readonly signal: CallerAbort;
  /** Stops listening (the answer is written, or the call is over). */
  release(): void;
}

type Listener = EventListenerOrEventListenerObject;

/**
 * The caller signal of one call. It holds nothing of the connection: whatever keeps the signal
 * a while (the upstream call, the provider's request) keeps only this small object.
 */
export class CallerAbort implements CallerSignal {
  aborted = false;
  reason: unknown = undefined;
  /** The listeners, in the order they were added (one or two on a call). */
  #listeners: Listener[] = [];

  addEventListener(_type: 'abort', listener: Listener, _options?: { once?: boolean }): void {
    // As on an AbortSignal: a listener added after the abort is never called, and each one at most once.
    if (!this.aborted && !this.#listeners.includes(listener)) this.#listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: Listener): void {
    const at = this.#listeners.indexOf(listener);
    if (at !== -1) this.#listeners.splice(at, 1);
  }

  /** Aborts the call as if the caller went away. */
  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = new DOMException('This operation was aborted', 'AbortError');
    const listeners = this.#listeners;
    this.#listeners = [];
    const event = new Event('abort');
    for (const listener of listeners) {
      // As an EventTarget does: a listener that throws does not keep the others from running.
      try {
        if (typeof listener === 'function') listener(event);
        else listener.handleEvent(event);
      } catch (error) {
        process.nextTick(() => {
          throw error;
        });
      }
    }
  }
}

export function watchCaller(reply: FastifyReply): CallerConnection {
  const signal = new CallerAbort();
  const onClose = () => {
    if (!reply.raw.writableFinished) signal.abort();
  };
  reply.raw.on('close', onClose);
  // Closed before this listener existed: 'close' will not be emitted again.
  if (reply.raw.destroyed && !reply.raw.writableFinished) signal.abort();
  return { signal, release: () => reply.raw.off('close', onClose) };
}
