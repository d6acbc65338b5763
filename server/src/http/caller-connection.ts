// A paid call's abort signal: it aborts once the caller's connection closes before the answer was
// written in full. The connection may close at any moment, also while the call is being prepared
// (authenticated, checked, its price reserved), before the route listens for it: a 'close' that
// already happened is never emitted again, so the call ran, was charged and was never delivered
// (issue 24, 1 in 20 blocking calls). watchCaller therefore also reads the connection's state.
import type { FastifyReply } from 'fastify';

export interface CallerConnection {
  /** Aborted once the caller went away before its answer was written in full. */
  readonly controller: AbortController;
  readonly signal: AbortSignal;
  /** Stops listening (the answer is written, or the call is over). */
  release(): void;
}

export function watchCaller(reply: FastifyReply): CallerConnection {
  const controller = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableFinished) controller.abort();
  };
  reply.raw.on('close', onClose);
  // Closed before this listener existed: 'close' will not be emitted again.
  if (reply.raw.destroyed && !reply.raw.writableFinished) controller.abort();
  return { controller, signal: controller.signal, release: () => reply.raw.off('close', onClose) };
}
