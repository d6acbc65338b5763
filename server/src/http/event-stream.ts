// A Server-Sent Events answer (the Dify and OpenAI-compatible streams, and Dify's workflow runs).
import type { FastifyReply } from 'fastify';
import { endAbandonedSpan } from '../platform/tracing.ts';

/**
 * Takes the reply over for Server-Sent Events and sends its headers (with the reply's own: rate
 * limits, price…) at once, so a caller knows the call started and may hang up for free. Returns the
 * stream's writer.
 *
 * The headers leave with whatever is written in the same turn of the event loop: the OpenAI stream's
 * role chunk, the Responses stream's response.created. Node already sends the writes of one turn of a
 * chunked answer in one socket write (an answer's last events with its end), but not the flushed
 * headers with the first of them. Each socket write is a system call and a wake-up of the caller.
 */
export function openEventStream(reply: FastifyReply): (text: string) => void {
  reply.hijack();
  const headers: Record<string, string | number> = {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  };
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = value as string;
  const raw = reply.raw;
  // A stream whose caller hangs up never finishes its response, so Fastify's onResponse (which ends
  // the request's server span, observability/observe.ts) never runs: end the span here instead.
  if (reply.request.callSpan) raw.once('close', () => endAbandonedSpan(reply.request, raw.writableFinished));
  raw.writeHead(200, headers);
  raw.cork();
  raw.flushHeaders();
  process.nextTick(() => raw.uncork());
  return (text) => {
    raw.write(text);
  };
}
