// Calls that come back through a chain of Tollbooth calls (issue 24: a workflow app pointed at
// Tollbooth's own Dify-compatible API turned 1 request into 407 nested calls in 5 s).
//
// Every upstream request Tollbooth makes carries a `Tollbooth-Hop` header: the chain of hops that
// led to it, each `<server>.<caller>` (a keyed hash of the deployment's PUBLIC_URL, and of the
// credentials the call arrived with), the incoming request's chain followed by this hop. A request
// arriving with a chain is refused with 508 call_loop when the chain already passed through this
// server, when the same credentials already appear in it (a key inside its own call), or when it is
// MAX_CALL_DEPTH hops long. The hashes say nothing about the server or the key to whoever reads them.
//
// The chain goes with the request (`request.callChain`), and whoever makes an upstream request
// passes hopHeaderOf(request) down to it: the workflow providers take it as a required argument,
// so a new path to an upstream cannot forget it (decision 0044). No AsyncLocalStorage: in Node 20
// one run() turns on promise hooks for every promise of the process, about 6 % of a paid call.
import { createHmac } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../platform/errors.ts';
import { HOP_HEADER } from '../providers/upstream.ts';

export { HOP_HEADER };

/** The longest chain accepted: a Tollbooth app may resell another Tollbooth's app, a few levels deep. */
export const MAX_CALL_DEPTH = 3;

/** The hops that led to a request, and this hop (hashed only when asked for). */
export interface CallChain {
  hops: string[];
  own(): string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's Tollbooth-Hop chain (null before the onRequest hook, or in an app without it). */
    callChain: CallChain | null;
  }
}

/** The chain of work that no request started (a background job): it is this server's own. */
export const INTERNAL_HOP = 'internal.internal';

const tag = (secret: Buffer, kind: string, value: string) => createHmac('sha256', secret).update(`${kind}:${value}`).digest('base64url').slice(0, 12);

/** The hops of a Tollbooth-Hop header (at most 32 read; anything else is ignored). */
function parseHops(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  const text = Array.isArray(value) ? value.join(',') : value;
  return text
    .split(',')
    .map((hop) => hop.trim())
    .filter((hop) => /^[\w-]{1,32}\.[\w-]{1,32}$/.test(hop))
    .slice(0, 32);
}

/**
 * Checks every request's incoming chain and keeps it on the request, for the upstream requests made
 * while answering (hopHeaderOf()).
 */
export function registerCallChain(app: FastifyInstance, options: { secret: Buffer; publicUrl: string }) {
  const server = tag(options.secret, 'server', new URL(options.publicUrl).origin);
  app.decorateRequest('callChain', null);
  app.addHook('onRequest', (request, _reply, done) => {
    const chain = new RequestChain(parseHops(request.headers[HOP_HEADER]), options.secret, server, request.headers.authorization ?? '');
    const hops = chain.hops;
    if (hops.length > 0) {
      const servers = hops.map((hop) => hop.split('.')[0]);
      const callers = hops.map((hop) => hop.split('.')[1]);
      let reason: string | null = null;
      if (servers.includes(server)) reason = 'This call came back to Tollbooth through its own provider call (a loop)';
      else if (chain.authorization && callers.includes(chain.caller())) reason = 'This call was made with the same credentials inside their own call (a loop)';
      else if (hops.length >= MAX_CALL_DEPTH)
        reason = `This call comes through ${hops.length} nested Tollbooth calls; at most ${MAX_CALL_DEPTH - 1} are allowed`;
      if (reason) {
        request.log.warn({ hops: hops.length }, 'call chain refused');
        done(new AppError('call_loop', reason, undefined, undefined, 'call_loop'));
        return;
      }
    }
    request.callChain = chain;
    done();
  });
}

/** A request's chain; its own hop is hashed only when asked for (a chain to check, or an upstream request to send). */
class RequestChain implements CallChain {
  constructor(
    readonly hops: string[],
    private readonly secret: Buffer,
    private readonly server: string,
    readonly authorization: string,
  ) {}

  caller(): string {
    return this.authorization ? tag(this.secret, 'caller', this.authorization) : 'anonymous';
  }

  own(): string {
    return `${this.server}.${this.caller()}`;
  }
}

/** The Tollbooth-Hop value for an upstream request made while answering `request`: its chain followed by this hop. */
export function hopHeaderOf(request: Pick<FastifyRequest, 'callChain'>): string {
  const chain = request.callChain;
  if (!chain) return INTERNAL_HOP;
  return [...chain.hops, chain.own()].join(', ');
}
