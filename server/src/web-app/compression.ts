// Compression on the fly for the management API (/api/...): JSON and other text answers above
// 1 KiB, brotli or gzip as the client accepts. Registered inside the /api scope only, so it never
// touches:
// - the callers' endpoints (completion-messages, chat-messages, workflows/run, /v1/...): a paid
//   call's answer is often just over 1 KiB, and compressing it added 35-60 µs per call, a real
//   share of the gateway's latency budget;
// - static files, which are sent from the build's precompressed .br/.gz copies (serve-web-app.ts);
// - event streams, excluded by type as well: a compressor buffers, and a stream's events must reach
//   the caller as they happen.
// See docs/decisions/0020-web-delivery.md.
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/** Smaller answers go out as they are: the saving would not pay for the work (or the header bytes). */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/** JSON (application/json, application/problem+json, …) and text other than text/event-stream. */
export const COMPRESSIBLE_TYPES = /^(?:application\/(?:[\w.-]+\+)?json|application\/(?:javascript|xml)|text\/(?!event-stream)[\w.+-]+)\s*(?:;|$)/i;

/** Compresses the answers of the routes registered in `scope` after this call. */
export async function registerCompression(scope: FastifyInstance) {
  await scope.register(compress, {
    threshold: COMPRESSION_THRESHOLD_BYTES,
    encodings: ['br', 'gzip'],
    customTypes: COMPRESSIBLE_TYPES,
    // Request bodies are not accepted compressed: the body limit applies to what is sent.
    globalDecompression: false,
  });
}
