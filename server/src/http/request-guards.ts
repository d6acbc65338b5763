// Input that PostgreSQL cannot store, or that is nested deeper than any of our schemas, is refused
// with a 400 naming the field before any route runs: a NUL character or an unpaired UTF-16
// surrogate in any string (text and jsonb columns refuse both, and a refusal at settlement would
// come after the answer went out), and JSON nested deeper than MAX_JSON_DEPTH (recursive code on
// it, our own or a library's, could overflow the stack).
import type { FastifyInstance } from 'fastify';
import { AppError } from '../platform/errors.ts';

export const MAX_JSON_DEPTH = 64;
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be stored, or null when it can. */
export function unstorableTextReason(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain NUL characters';
  if (UNPAIRED_SURROGATE.test(text)) return 'must not contain unpaired UTF-16 surrogates';
  return null;
}

/** Finds the first unstorable string (key or value) or too-deep nesting; iterative, so depth cannot overflow it. */
export function findUnsafeInput(value: unknown, root: string): { field: string; reason: string } | null {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: root, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, path, depth } = stack.pop()!;
    if (typeof current === 'string') {
      const reason = unstorableTextReason(current);
      if (reason) return { field: path, reason };
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) return { field: path, reason: `must not be nested more than ${MAX_JSON_DEPTH} levels deep` };
    const entries: [string, unknown][] = current instanceof URLSearchParams ? [...current.entries()] : Object.entries(current);
    for (const [key, child] of entries) {
      const childPath = path ? `${path}.${key}` : key;
      const keyReason = unstorableTextReason(key);
      if (keyReason) return { field: path || key, reason: `keys ${keyReason}` };
      stack.push({ value: child, path: childPath, depth: depth + 1 });
    }
  }
  return null;
}

/** Checks the body, query string and path parameters of every route before its schema validation. */
export function registerRequestGuards(app: FastifyInstance) {
  // A synchronous hook: no promise per request on every route.
  app.addHook('preValidation', (request, _reply, done) => {
    for (const value of [request.body, request.query, request.params]) {
      const problem = findUnsafeInput(value, '');
      if (problem) {
        const field = problem.field || 'body';
        done(new AppError('invalid_param', `${field}: ${problem.reason}`, field));
        return;
      }
    }
    done();
  });
}

/**
 * A multipart body where JSON is taken (every route but the two uploads, whose scope registers the
 * multipart parser itself) is refused with a 400 naming the body, whether or not its framing can be
 * read, rather than Fastify's 415 for a type it has no parser for: only the uploads take files, and
 * a malformed multipart body is the caller's mistake like any other (issue 56). The parser runs only
 * for such a body, so it costs the JSON calls nothing.
 */
export function refuseMultipartBodies(app: FastifyInstance) {
  app.addContentTypeParser(MULTIPART_FORM_DATA, (_request, _payload, done) => done(multipartWhereJsonIsTaken(), undefined));
}

const MULTIPART_FORM_DATA = /^\s*multipart\/form-data/i;

const multipartWhereJsonIsTaken = () =>
  new AppError('invalid_param', 'body: must be JSON (Content-Type: application/json); only the file upload routes take multipart/form-data', 'body');

/**
 * The same refusal for a multipart Content-Type Fastify cannot even read ("multipart/form-data
 * boundary=x", without the ";"), which it refuses as an unknown media type (415) before any parser:
 * the error handlers ask this first. Null for any other error.
 */
export function refusedMultipartBody(error: { code?: string }, contentType: string | undefined): AppError | null {
  return error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' && contentType !== undefined && MULTIPART_FORM_DATA.test(contentType)
    ? multipartWhereJsonIsTaken()
    : null;
}

/** Text from outside callers' reach (model answers) made storable: NULs and unpaired surrogates become U+FFFD. */
export function toStorableText(text: string): string {
  if (!text.includes('\u0000') && !ANY_SURROGATE.test(text)) return text;
  return text.replaceAll('\u0000', '\uFFFD').replace(UNPAIRED_SURROGATES, '\uFFFD');
}
/** With a NUL, only a text with a surrogate can change in toStorableText (most texts have neither, and are returned as they are). */
const ANY_SURROGATE = /[\uD800-\uDFFF]/;
const UNPAIRED_SURROGATES = new RegExp(UNPAIRED_SURROGATE.source, 'g');
