// Content negotiation for the paid call routes (Dify-compatible, /v1/invoke and the OpenAI-compatible
// ones): they answer JSON or an event stream, nothing else, so a caller that accepts neither
// (Accept: application/xml) gets 406 before any paid call is made.
import type { FastifyRequest } from 'fastify';
import { AppError } from '../platform/errors.ts';

const ACCEPTABLE = new Set(['*/*', 'application/*', 'application/json', 'text/*', 'text/event-stream']);

/** An onRequest hook: 406 not_acceptable (not charged) unless Accept allows JSON or an event stream. */
export async function refuseUnacceptable(request: FastifyRequest) {
  const accept = request.headers.accept;
  if (!accept) return;
  const acceptable = accept.split(',').some((range) => {
    const [type, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    return ACCEPTABLE.has(type!) && !params.some((param) => /^q=0(?:\.0*)?$/.test(param));
  });
  if (!acceptable)
    throw new AppError(
      'not_acceptable',
      'This endpoint answers application/json (or text/event-stream when streaming): send Accept: application/json',
      'accept',
    );
}
