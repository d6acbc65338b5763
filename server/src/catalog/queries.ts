// The catalog's SQL: live public apps only (never private, embed, draft, archived or deleted ones),
// with the price in force now, the creator's public name, and popularity read from each app's running
// totals (app_totals, migration 0060: successes less those before the last 30 days, one row per app),
// or, for an app whose totals are not rolled to today yet, summed from its last 30 daily rollups.
import { type CatalogSort, DIFY_CHAT_MODES } from '@tollbooth/contract';
import type { AppRow, PricedAppColumns } from '../apps/service.ts';
import type { Queryable } from '../db/client.ts';

/** An app's columns as apps/ reads them, with its price in force and any announced increase. */
export interface CatalogRow extends Pick<AppRow, PricedAppColumns | 'upcoming_pricing'> {
  mode: 'completion' | 'chat';
  creator_name: string;
  calls_30d: number;
  published_at: Date;
  /** published_at in microseconds since the epoch: the newest sort's exact key. */
  published_us: number;
  /** The Dify app info stored with a workflow app's configuration (null for prompt apps). */
  app_info: { name?: string; description?: string; mode?: string; user_input_form?: unknown[] } | null;
  /** A prompt app's model and whose key answers it (null for workflow apps). */
  model: string | null;
  key_source: 'platform' | 'own' | null;
}

// The contract's list of Dify chat modes, as an SQL list (constant strings).
const DIFY_CHAT_MODES_SQL = `(${DIFY_CHAT_MODES.map((mode) => `'${mode}'`).join(', ')})`;

const TODAY = "(now() AT TIME ZONE 'UTC')::date";

/**
 * How a listed app's successful calls of the last $1 days are read: `totals` from its running
 * totals alone (only when every app's totals are as of today: selectCatalogPage checks it in the same
 * statement), `checked` from its totals when they are as of today and else summed from its days.
 * `checked`'s per-app sub-select is never run for fresh totals, but the planner prices it for every
 * listed app, and over 10,000 apps that price turns on JIT compilation (tens of milliseconds).
 */
const CALLS = {
  // Exactly app_totals_popular's expression, so the popular sort walks that index (migration 0060).
  totals: '(t.successes - t.before30_successes) AS calls_30d,',
  checked: `CASE WHEN t.app_id IS NULL THEN 0
      WHEN $1::int = 30 AND t.as_of = ${TODAY} THEN t.successes - t.before30_successes
      ELSE coalesce((SELECT sum(s.successes) FROM app_daily_stats s
        WHERE s.app_id = a.id AND s.day > ${TODAY} - $1::int), 0) END::bigint AS calls_30d,`,
};

// One row per listed app. A workflow app's mode is its Dify app's (a chat mode or not).
const listed = (calls: keyof typeof CALLS) => `
  SELECT a.id, a.owner_id, a.slug, a.name, a.description, a.type,
    CASE WHEN a.type = 'workflow'
      THEN CASE WHEN w.app_info->>'mode' IN ${DIFY_CHAT_MODES_SQL} THEN 'chat' ELSE 'completion' END
      ELSE a.interaction_mode END AS mode,
    CASE WHEN a.upcoming_price_at <= now() THEN a.upcoming_price_cents ELSE a.price_cents END AS price_cents,
    CASE WHEN a.upcoming_price_at > now() THEN a.upcoming_price_cents END AS upcoming_price_cents,
    CASE WHEN a.upcoming_price_at > now() THEN a.upcoming_price_at END AS upcoming_price_at,
    CASE WHEN a.upcoming_price_at <= now() THEN a.upcoming_pricing ELSE a.pricing END AS pricing,
    CASE WHEN a.upcoming_price_at > now() THEN a.upcoming_pricing END AS upcoming_pricing,
    coalesce(nullif(c.display_name, ''), nullif(u.display_name, ''), u.username) AS creator_name,
    ${CALLS[calls]}
    coalesce(a.went_live_at, a.created_at) AS published_at,
    (extract(epoch FROM coalesce(a.went_live_at, a.created_at)) * 1000000)::bigint AS published_us,
    w.app_info, pc.model, pc.key_source
  FROM apps a
  JOIN users u ON u.id = a.owner_id
  LEFT JOIN creators c ON c.user_id = a.owner_id
  LEFT JOIN workflow_configs w ON w.app_id = a.id
  LEFT JOIN prompt_configs pc ON pc.app_id = a.id
  ${calls === 'totals' ? 'JOIN' : 'LEFT JOIN'} app_totals t ON t.app_id = a.id
  WHERE a.deleted_at IS NULL AND a.status = 'live' AND a.visibility = 'public'`;

/** Sort keys, in order, with their direction; the cursor carries the last row's values of these. */
export const SORT_KEYS: Record<CatalogSort, { columns: string[]; direction: 'ASC' | 'DESC' }> = {
  popular: { columns: ['calls_30d', 'published_us', 'id'], direction: 'DESC' },
  newest: { columns: ['published_us', 'id'], direction: 'DESC' },
  price_asc: { columns: ['price_cents', 'id'], direction: 'ASC' },
  price_desc: { columns: ['price_cents', 'id'], direction: 'DESC' },
};

export interface CatalogFilter {
  words: string[];
  type?: string;
  mode?: string;
  price?: 'free' | 'paid';
  maxPriceCents?: number;
  sort: CatalogSort;
  /** The last row's sort key values of the previous page. */
  after: (string | number)[] | null;
  limit: number;
  popularDays: number;
}

/** A LIKE pattern that matches the text literally anywhere. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

export async function selectCatalogPage(db: Queryable, filter: CatalogFilter): Promise<CatalogRow[]> {
  const params: unknown[] = [filter.popularDays];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const where: string[] = [];
  for (const word of filter.words) {
    const pattern = param(containing(word));
    where.push(`(name ILIKE ${pattern} OR description ILIKE ${pattern} OR slug ILIKE ${pattern} OR creator_name ILIKE ${pattern})`);
  }
  if (filter.type) where.push(`type = ${param(filter.type)}`);
  if (filter.mode) where.push(`mode = ${param(filter.mode)}`);
  // price_cents is a card's least call, rounded up to a cent: a per-token or cost-plus app without a
  // fee or minimum has 0 there, yet its calls are paid (issue 60). Free is a per-call price of 0.
  const free = "price_cents = 0 AND coalesce(pricing->>'form', 'per_call') = 'per_call'";
  if (filter.price === 'free') where.push(`(${free})`);
  if (filter.price === 'paid') where.push(`NOT (${free})`);
  if (filter.maxPriceCents !== undefined) where.push(`price_cents <= ${param(filter.maxPriceCents)}`);
  const { columns, direction } = SORT_KEYS[filter.sort];
  if (filter.after) {
    const values = filter.after.map((value) => param(value));
    where.push(`(${columns.join(', ')}) ${direction === 'DESC' ? '<' : '>'} (${values.join(', ')})`);
    // The row comparison's first key alone too: an index range can start there.
    where.push(`${columns[0]} ${direction === 'DESC' ? '<=' : '>='} ${values[0]}`);
  }
  const order = columns.map((column) => `${column} ${direction}`).join(', ');
  const page = `${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${order} LIMIT ${param(filter.limit)}`;
  // When every app's running totals are as of today (the roller keeps them so), the page reads them
  // alone; `fresh` says whether they were, in the same statement (so on the same day) as the page.
  const { rows } = await db.query<CatalogRow & { fresh: boolean }>(
    `SELECT g.fresh, l.* FROM (SELECT $1::int = 30 AND NOT EXISTS (SELECT 1 FROM app_totals WHERE as_of < ${TODAY} OR as_of > ${TODAY}) AS fresh) g
     LEFT JOIN LATERAL (SELECT * FROM (${listed('totals')}) listed ${page}) l ON g.fresh`,
    params,
  );
  if (rows[0]?.fresh) return rows.filter((row) => row.id !== null).map(({ fresh: _, ...row }) => row);
  // Some app's totals are behind today (until the roller's next run): each such app's days are summed.
  const { rows: checked } = await db.query<CatalogRow>(`WITH listed AS (${listed('checked')}) SELECT * FROM listed ${page}`, params);
  return checked;
}

export async function selectCatalogApp(db: Queryable, slug: string, popularDays: number): Promise<CatalogRow | null> {
  const { rows } = await db.query<CatalogRow>(`${listed('checked')} AND a.slug = $2`, [popularDays, slug]);
  return rows[0] ?? null;
}

export interface PlanRow {
  id: string;
  name: string;
  description: string;
  price_cents: number;
  currency: string;
  features: Record<string, string>;
  included_calls: number;
  /** bigint: node-postgres reads it as text. */
  included_usage_micros: string;
}

/** The app's active plans, cheapest first. */
export async function selectActivePlans(db: Queryable, appId: string): Promise<PlanRow[]> {
  const { rows } = await db.query<PlanRow>(
    `SELECT id, name, description, price_cents, currency, features, included_calls, included_usage_micros FROM packages
     WHERE app_id = $1 AND is_active ORDER BY price_cents, created_at, id`,
    [appId],
  );
  return rows;
}

/** A workflow app's stored Dify app info (its mode and input form), or null. */
export async function selectWorkflowAppInfo(db: Queryable, appId: string): Promise<CatalogRow['app_info']> {
  const { rows } = await db.query<{ app_info: CatalogRow['app_info'] }>('SELECT app_info FROM workflow_configs WHERE app_id = $1', [appId]);
  return rows[0]?.app_info ?? null;
}
