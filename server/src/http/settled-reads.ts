// Paid calls are answered before their settlement commit (billing/paid-call/service.ts, decision 0024).
// Every other request waits for the calls this process has answered so far, so what the API reads
// (balances, key spend, earnings, analytics, invocations, conversations) includes them. Routes
// that take a paid call mark themselves with `config: { paidCall: true }` and never wait.
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** Resolves once every call this process answered so far is settled; null when none is waiting. */
    settledReads(): Promise<unknown> | null;
  }
  interface FastifyContextConfig {
    /** The route takes a paid call: it does not wait for earlier calls' settlements. */
    paidCall?: boolean;
  }
}

export const PAID_CALL_ROUTE = { paidCall: true } as const;

/** written(): resolves once every answered call is settled, or null when none is waiting. */
export function registerSettledReads(app: FastifyInstance, written: () => Promise<unknown> | null) {
  app.decorate('settledReads', written);
  app.addHook('onRequest', (request, _reply, done) => {
    const pending = request.routeOptions.config.paidCall ? null : written();
    if (pending === null) done();
    else pending.then(() => done(), done);
  });
}
