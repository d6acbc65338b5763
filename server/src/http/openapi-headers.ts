// Response headers in the OpenAPI document: X-Request-Id on every answer (request-id.ts), RateLimit-*
// on the management API's signed-in answers (management-rate-limit.ts), and on
// the paid call operations the rate-limit headers, Retry-After on 429 and Idempotent-Replayed on a
// replayed answer, as every caller protocol's door sends them (gateway/door-service.ts).

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

export const RESPONSE_HEADERS = {
  'X-Request-Id': {
    description: 'The request id: the caller’s own X-Request-Id when it sent a valid one, else a new UUID; also `request_id` in error bodies.',
    schema: { type: 'string', maxLength: 128 },
  },
  'RateLimit-Limit': { description: 'Calls allowed per minute for this API key (or user).', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Calls left in the current minute.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the current window ends.', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before calling again.', schema: { type: 'integer' } },
  'X-Price-Cents': {
    description: 'The price this call was charged, in integer cents (0 for your own apps and demo answers); also usage.cost in the OpenAI-compatible answers.',
    schema: { type: 'integer', minimum: 0 },
  },
  'Idempotent-Replayed': {
    description: '`true` when this answer is the stored one for a repeated Idempotency-Key (not charged again).',
    schema: { type: 'string', enum: ['true'] },
  },
} as const;

/** The operations that make a paid call (method and path without a trailing slash). */
export const CALL_OPERATIONS = new Set([
  'post /api/app/{slug}/completion-messages',
  'post /api/app/{slug}/chat-messages',
  'post /api/app/{slug}/workflows/run',
  'post /v1/chat/completions',
  'post /v1/responses',
]);

const RATE_LIMIT = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];

function headersFor(call: boolean, status: string, managed = false): string[] {
  // The management API's per-user limit (management-rate-limit.ts) on signed-in answers.
  if (!call) return managed && /^2/.test(status) ? ['X-Request-Id', ...RATE_LIMIT] : ['X-Request-Id'];
  if (status === '200') return ['X-Request-Id', ...RATE_LIMIT, 'X-Price-Cents', 'Idempotent-Replayed'];
  if (status === '429') return ['X-Request-Id', 'Retry-After', ...RATE_LIMIT];
  return ['X-Request-Id'];
}

interface Operation {
  security?: Record<string, unknown>[];
  responses?: Record<string, { headers?: Record<string, unknown> } & Record<string, unknown>>;
}
interface HeaderDocument {
  paths?: Record<string, Record<string, unknown> | undefined>;
  components?: Record<string, unknown>;
}

/** A management operation a signed-in user calls (the document's default security is the bearer token). */
const managed = (path: string, operation: Operation) =>
  path.startsWith('/api/') && (operation.security === undefined || operation.security.some((entry) => 'bearer' in entry));

/** For @fastify/swagger's transformObject: documents the response headers (each response its own object). */
export function addResponseHeaders<T extends object>(document: T): T {
  const doc = document as HeaderDocument;
  doc.components = { ...doc.components, headers: { ...(doc.components?.headers as object | undefined), ...RESPONSE_HEADERS } };
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    if (!item) continue;
    const call = (method: string) => CALL_OPERATIONS.has(`${method} ${path.replace(/(.)\/$/, '$1')}`);
    for (const method of METHODS) {
      const operation = item[method] as Operation | undefined;
      if (!operation?.responses) continue;
      const responses: NonNullable<Operation['responses']> = {};
      for (const [status, response] of Object.entries(operation.responses)) {
        const headers = { ...response.headers };
        for (const name of headersFor(call(method), status, managed(path, operation))) headers[name] ??= ref(name);
        responses[status] = { ...response, headers };
      }
      item[method] = { ...operation, responses };
    }
  }
  return document;
}
