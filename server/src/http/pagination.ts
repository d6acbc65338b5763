// Cursor pagination for every list that grows (applications, API keys, ledger, invocations,
// conversations, catalog). One convention, see decision record 0010:
//
// - The request takes `limit` (how many items, capped per list) and `cursor` (opaque, from the
//   previous page's next_cursor; absent for the first page).
// - Lists whose answer is a JSON array (the spec's shapes) stay arrays; the page is described in
//   headers: `X-Has-More: true|false`, `X-Next-Cursor` when there is a next page, and a
//   `Link: <…>; rel="next"` built from the request's own URL.
// - Lists answered as an object carry the same facts in the body: `{results, has_more, next_cursor}`
//   (see PageEnvelope: the ledger, the catalog, the creators directory, which also keeps its `count`),
//   and send the same headers. The creators directory's old `offset` is kept for one release and
//   answered with `Deprecation: true` (decision 0085).
// - Dify-compatible lists (conversations, messages, workflow logs) keep Dify's own shapes, which
//   dify-client and Dify front ends read (decision 0029).
//
// Keyset pagination, newest first over (created_at, id): a page costs the same however long the
// list is, and rows inserted meanwhile neither repeat nor shift later pages. The cursor keeps the
// row's timestamp as PostgreSQL text (microseconds; a JS Date would drop them and skip rows).
import type { FastifyReply } from 'fastify';
import { type TSchema, Type } from 'typebox';
import { invalidParam } from '../platform/errors.ts';

export interface PageOptions {
  /** Items on a page when the caller gives no limit. */
  defaultLimit: number;
  /** Most items a caller may ask for. */
  maxLimit: number;
}

/** What a paged read needs: the limit (after defaults) and the caller's cursor, if any. */
export interface PageRequest {
  limit: number;
  cursor?: string;
}

export interface Page<T> {
  items: T[];
  has_more: boolean;
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  next_cursor: string | null;
}

/** A row's place in a newest-first (created_at, id) order. */
export interface KeysetPosition {
  /** created_at as PostgreSQL prints it (select it with keysetAtSql), never a JS Date. */
  at: string;
  id: string;
}

const CURSOR_DESCRIPTION = 'Opaque: the `next_cursor` (or `X-Next-Cursor` header) of the previous page; absent for the first page';

/** The `cursor` query parameter alone, for a list that already has its own `limit`. */
export const CursorParam = Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: CURSOR_DESCRIPTION }));

/** The `limit` and `cursor` query parameters of a paged list, to spread into its querystring schema. */
export function pageQueryProperties({ defaultLimit, maxLimit }: PageOptions) {
  return {
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: maxLimit, default: defaultLimit, description: `How many items (1–${maxLimit}, default ${defaultLimit})` }),
    ),
    cursor: CursorParam,
  };
}

/** A querystring schema with only `limit` and `cursor`. */
export const PageQuery = (options: PageOptions) => Type.Object(pageQueryProperties(options));

/** An object answer for a new paged list: `{results, has_more, next_cursor}`. */
export const PageEnvelope = <T extends TSchema>(item: T, description?: string) =>
  Type.Object(
    {
      results: Type.Array(item),
      has_more: Type.Boolean({ description: 'True when another page follows' }),
      next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page; null on the last page' }),
    },
    description ? { description } : {},
  );

/** The page headers as OpenAPI response headers, for list routes' documentation. */
export const PAGE_RESPONSE_HEADERS = {
  'X-Has-More': { description: 'true when another page follows', schema: { type: 'string', enum: ['true', 'false'] } },
  'X-Next-Cursor': { description: 'Pass as `cursor` for the next page; absent on the last page', schema: { type: 'string' } },
  Link: { description: 'RFC 8288 link to the next page (rel="next"); absent on the last page', schema: { type: 'string' } },
} as const;

/** The SQL expression to select a row's timestamp for its cursor, e.g. keysetAtSql('a.created_at') AS cursor_at. */
export const keysetAtSql = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export function encodeKeysetCursor(position: KeysetPosition): string {
  return Buffer.from(JSON.stringify([position.at, position.id]), 'utf8').toString('base64url');
}

const CURSOR_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const CURSOR_ID = /^[0-9A-Za-z-]{1,64}$/;

/** The position a cursor names, or null without one; a cursor this server did not make is a 400 naming `field`. */
export function decodeKeysetCursor(cursor: string | undefined, field = 'cursor'): KeysetPosition | null {
  if (cursor === undefined) return null;
  let decoded: unknown;
  try {
    decoded = /^[A-Za-z0-9_-]+$/.test(cursor) ? JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) : null;
  } catch {
    decoded = null;
  }
  if (
    !Array.isArray(decoded) ||
    decoded.length !== 2 ||
    typeof decoded[0] !== 'string' ||
    typeof decoded[1] !== 'string' ||
    !CURSOR_AT.test(decoded[0]) ||
    Number.isNaN(Date.parse(decoded[0])) ||
    !CURSOR_ID.test(decoded[1])
  ) {
    throw invalidParam(field, 'is not a valid cursor');
  }
  return { at: decoded[0], id: decoded[1] };
}

/**
 * The condition "older than the cursor" for a newest-first (created_at, id) order, as SQL with its
 * parameters numbered from `firstParam`: `AND (a.created_at, a.id) < ($2::timestamptz, $3::uuid)`.
 * Empty (and no parameters) without a cursor.
 */
export function keysetBefore(columns: KeysetColumns, position: KeysetPosition | null, firstParam: number): { sql: string; params: string[] } {
  return keysetCondition('<', columns, position, firstParam);
}

/** The condition "newer than the cursor", for the few lists read oldest first (the creators directory). */
export function keysetAfter(columns: KeysetColumns, position: KeysetPosition | null, firstParam: number): { sql: string; params: string[] } {
  return keysetCondition('>', columns, position, firstParam);
}

interface KeysetColumns {
  at: string;
  id: string;
  idType: 'uuid' | 'bigint';
}

function keysetCondition(
  comparison: '<' | '>',
  columns: KeysetColumns,
  position: KeysetPosition | null,
  firstParam: number,
): { sql: string; params: string[] } {
  if (!position) return { sql: '', params: [] };
  if (columns.idType === 'bigint' && !/^\d{1,18}$/.test(position.id)) throw invalidParam('cursor', 'is not a valid cursor');
  if (columns.idType === 'uuid' && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(position.id)) {
    throw invalidParam('cursor', 'is not a valid cursor');
  }
  return {
    sql: `AND (${columns.at}, ${columns.id}) ${comparison} ($${firstParam}::timestamptz, $${firstParam + 1}::${columns.idType})`,
    params: [position.at, position.id],
  };
}

/**
 * A page from rows read with `LIMIT limit + 1`: the extra row only says that more follow.
 * `cursorOf` gives the cursor of the page's last row.
 */
export function takePage<T>(rows: T[], limit: number, cursorOf: (row: T) => string): Page<T> {
  const items = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return { items, has_more: hasMore, next_cursor: hasMore && items.length > 0 ? cursorOf(items[items.length - 1]!) : null };
}

/** takePage for rows selected with `keysetAtSql(...) AS cursor_at` and an id. */
export function takeKeysetPage<T extends { cursor_at: string; id: string | number }>(rows: T[], limit: number): Page<T> {
  return takePage(rows, limit, (row) => encodeKeysetCursor({ at: row.cursor_at, id: String(row.id) }));
}

/** Maps a page's items, keeping its has_more and next_cursor. */
export function mapPage<T, U>(page: Page<T>, map: (item: T) => U): Page<U> {
  return { ...page, items: page.items.map(map) };
}

/** Describes the page in headers (X-Has-More, X-Next-Cursor, Link rel="next"); returns its items for an array answer. */
export function sendPageHeaders<T>(reply: FastifyReply, page: Page<T>): T[] {
  reply.header('X-Has-More', String(page.has_more));
  if (page.next_cursor !== null) {
    reply.header('X-Next-Cursor', page.next_cursor);
    const url = new URL(reply.request.url, 'http://localhost');
    url.searchParams.set('cursor', page.next_cursor);
    reply.header('Link', `<${url.pathname}${url.search}>; rel="next"`);
  }
  return page.items;
}
