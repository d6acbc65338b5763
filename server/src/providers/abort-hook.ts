// How an upstream call (upstream.ts) tells our own HTTP client (pooled-fetch.ts) to stop, without
// an AbortController: Node's takes a few microseconds to make, and its EventTarget as much again for
// each listener added and removed, on every paid call (decision 0053). A request's init carries the
// hook under UPSTREAM_ABORT; any other fetch reads the init's `signal`, which is then made on demand.

/** The key of a request init's abort hook. */
export const UPSTREAM_ABORT = Symbol('tollbooth.upstreamAbort');

/** The abort side of an AbortSignal, with one listener at a time. */
export interface AbortHook {
  readonly aborted: boolean;
  /** Why it aborted (undefined while it has not). */
  readonly reason: unknown;
  /** Sets the one listener told when it aborts (null to stop listening). */
  onAbort(listener: { handleEvent(): void } | null): void;
}

/** The hook a request init carries, if any. */
export function abortHookOf(init: RequestInit | undefined): AbortHook | null {
  return (init as { [UPSTREAM_ABORT]?: AbortHook } | undefined)?.[UPSTREAM_ABORT] ?? null;
}

/**
 * What a call's code reads of the caller's signal: an AbortSignal, or the gateway's own CallerAbort
 * (http/caller-connection.ts), which a paid call makes without Node's AbortController and EventTarget
 * (decision 0059). Code that needs a real AbortSignal (fetch, timers) makes its own controller and
 * listens to this one, as the Dify provider does.
 */
export interface CallerSignal {
  readonly aborted: boolean;
  /** Why it aborted (undefined while it has not). */
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: EventListenerOrEventListenerObject, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: EventListenerOrEventListenerObject): void;
}
