// A process's graceful drain (issue 57, decision 0082). On SIGTERM:
//   1. /readyz answers 503 at once, so load balancers stop sending it calls; for the grace period
//      (SHUTDOWN_GRACE_SECONDS) it still takes new connections and calls, which a balancer that has
//      not yet seen the 503 may send, and every answer from now on closes its connection;
//   2. then it stops listening and closes idle connections; calls in flight and open streams go on
//      until SHUTDOWN_TIMEOUT_SECONDS after the signal;
//   3. what is still open then is cut, as when a caller hangs up: its upstream call is aborted and
//      it is billed by the streaming rule (charged once any part of the answer was sent);
//   4. once every handler has returned, app.close() settles and commits every answered call,
//      releases the credit leases and holds (billing/paid-call/service.ts close()), closes Redis and the
//      database's listeners; then the caller closes the database and the process exits 0.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

/** Handlers still running after their connection closed get this long past the timeout before the process gives up on them. */
const HANDLERS_AFTER_CUT_MS = 15_000;
const IDLE_SWEEP_MS = 200;

export interface Lifecycle {
  /** True from the signal on: /readyz answers 503 and every answer closes its connection. */
  readonly draining: boolean;
  /** Route handlers running now (a stream's handler runs until the stream ends). */
  readonly handlersRunning: number;
  startDraining(): void;
  /** Resolves once no handler runs. */
  handlersDone(): Promise<void>;
}

export function createLifecycle(): Lifecycle & { handlerStarted(): void; handlerEnded(): void } {
  let draining = false;
  let running = 0;
  let waiters: (() => void)[] = [];
  return {
    get draining() {
      return draining;
    },
    get handlersRunning() {
      return running;
    },
    startDraining() {
      draining = true;
    },
    handlerStarted() {
      running++;
    },
    handlerEnded() {
      running--;
      if (running === 0 && waiters.length > 0) {
        const done = waiters;
        waiters = [];
        for (const resolve of done) resolve();
      }
    },
    handlersDone() {
      return running === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}

/**
 * Counts every route handler while it runs, so the drain knows when the last call (whose connection
 * may already be gone) has reported its outcome to billing; and while draining, every answer tells
 * its client to close the connection (the next call goes through the balancer to another process).
 */
export function trackHandlers(app: FastifyInstance, lifecycle: ReturnType<typeof createLifecycle>): void {
  app.addHook('onRoute', (route) => {
    const handler = route.handler;
    route.handler = function tracked(this: FastifyInstance, request, reply) {
      lifecycle.handlerStarted();
      let result: unknown;
      try {
        result = handler.call(this, request, reply);
      } catch (error) {
        lifecycle.handlerEnded();
        throw error;
      }
      if (result instanceof Promise) return result.finally(() => lifecycle.handlerEnded());
      lifecycle.handlerEnded();
      return result;
    } as typeof handler;
  });
  app.addHook('onSend', async (_request, reply) => {
    if (lifecycle.draining) reply.header('connection', 'close');
  });
}

export interface DrainOptions {
  app: FastifyInstance;
  lifecycle: Lifecycle;
  graceSeconds: number;
  timeoutSeconds: number;
  log: FastifyBaseLogger;
  /** Resolves when the drain should cut what is open now instead of at the timeout (a second signal). */
  cutNow?: Promise<void>;
}

/** Until no handler runs, also when a handler starts on a connection that was still open as the last one ended. */
async function allHandlersDone(lifecycle: Lifecycle): Promise<void> {
  while (lifecycle.handlersRunning > 0) await lifecycle.handlersDone();
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs steps 1-4 above; resolves once the app is closed. Returns what was cut at the timeout. */
export async function drain({ app, lifecycle, graceSeconds, timeoutSeconds, log, cutNow }: DrainOptions): Promise<{ cut: number }> {
  const startedAt = Date.now();
  const deadline = Promise.race([sleep(timeoutSeconds * 1000), ...(cutNow ? [cutNow] : [])]);
  lifecycle.startDraining();
  log.info({ graceSeconds, timeoutSeconds }, 'draining: /readyz answers 503; new connections are taken for the grace period');
  await Promise.race([sleep(graceSeconds * 1000), deadline]);

  // Stop listening. server.close() closes the connections idle now; its callback runs once the last
  // connection has ended. Connections that go idle later (a keep-alive answer sent before the drain)
  // are closed by the sweep.
  const server = app.server;
  const connectionsEnded = new Promise<void>((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
  });
  const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
  log.info({ handlersRunning: lifecycle.handlersRunning }, 'draining: no longer listening; waiting for calls and streams in flight');
  const finished = connectionsEnded.then(() => allHandlersDone(lifecycle)).then(() => 'finished' as const);
  const outcome = await Promise.race([finished, deadline.then(() => 'timeout' as const)]);
  clearInterval(sweep);
  let cut = 0;
  if (outcome === 'timeout') {
    cut = lifecycle.handlersRunning;
    log.warn({ cut }, 'drain timeout: cutting the connections still open (their calls are billed as cut calls)');
    server.closeAllConnections();
    const gaveUp = await Promise.race([allHandlersDone(lifecycle).then(() => false), sleep(HANDLERS_AFTER_CUT_MS).then(() => true)]);
    if (gaveUp) log.error({ handlersRunning: lifecycle.handlersRunning }, 'handlers still running after their connections were cut; closing anyway');
  }
  // Fastify's close runs the app's onClose hooks: settle and commit what waits, release leases and holds, close pools.
  await app.close();
  log.info({ ms: Date.now() - startedAt, cut }, 'drained');
  return { cut };
}
