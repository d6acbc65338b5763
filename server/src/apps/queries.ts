import { DIFY_CHAT_MODES, type RateCard } from '@tollbooth/contract';
import type { Queryable } from '../db/client.ts';
import { decodeKeysetCursor, keysetAtSql, keysetBefore, type Page, type PageRequest, takeKeysetPage } from '../http/pagination.ts';

export interface AppRow {
  id: string;
  owner_id: string;
  name: string;
  slug: string;
  description: string;
  type: 'prompt' | 'workflow';
  interaction_mode: 'completion' | 'chat';
  /** The endpoint calls take: interaction_mode, or a workflow app's Dify app mode once it is known. */
  call_mode: 'completion' | 'chat';
  visibility: 'private' | 'public' | 'embed';
  status: 'draft' | 'live' | 'archived';
  /** The price in force now (an upcoming increase whose date has passed is in force). */
  price_cents: number;
  /** An announced increase and when it takes effect, or null. */
  upcoming_price_cents: number | null;
  upcoming_price_at: Date | null;
  /** The rate card in force (issue 60; apps/pricing.ts): null is per call at price_cents. */
  pricing: RateCard | null;
  /** The announced card of an upcoming increase (null with upcoming_price_cents alone: per call at it). */
  upcoming_pricing: RateCard | null;
  went_live_at: Date | null;
  provider_config: { app_id?: string; base_url?: string };
  provider_secret_sealed: string | null;
  created_at: Date;
  updated_at: Date;
  creator_name: string;
  /** Callers may send tools and response formats through the OpenAI-compatible endpoints (prompt apps). */
  caller_tools: boolean;
}

/** The columns that name an app and price its calls (the catalog's and the OpenAI-compatible surface's reads carry them). */
export type PricedAppColumns =
  | 'id'
  | 'owner_id'
  | 'slug'
  | 'name'
  | 'description'
  | 'type'
  | 'price_cents'
  | 'upcoming_price_cents'
  | 'upcoming_price_at'
  | 'pricing';

// Price changes need no sweeper: an increase whose date has passed is read as the price.
const EFFECTIVE_PRICE_COLUMNS = `CASE WHEN a.upcoming_price_at <= now() THEN a.upcoming_price_cents ELSE a.price_cents END AS price_cents,
  CASE WHEN a.upcoming_price_at > now() THEN a.upcoming_price_cents END AS upcoming_price_cents,
  CASE WHEN a.upcoming_price_at > now() THEN a.upcoming_price_at END AS upcoming_price_at,
  CASE WHEN a.upcoming_price_at <= now() THEN a.upcoming_pricing ELSE a.pricing END AS pricing,
  CASE WHEN a.upcoming_price_at > now() THEN a.upcoming_pricing END AS upcoming_pricing`;

// A workflow app's calls follow its Dify app's mode (the workflow feature stores it); a prompt app's its interaction mode.
const CALL_MODE_COLUMN = `CASE WHEN a.type = 'workflow' THEN coalesce((SELECT CASE WHEN w.app_info->>'mode' IN (${DIFY_CHAT_MODES.map((mode) => `'${mode}'`).join(', ')}) THEN 'chat' ELSE 'completion' END
    FROM workflow_configs w WHERE w.app_id = a.id AND w.app_info->>'mode' IS NOT NULL), a.interaction_mode) ELSE a.interaction_mode END AS call_mode`;

const APP_SELECT = `SELECT a.id, a.owner_id, a.name, a.slug, a.description, a.type, a.interaction_mode, ${CALL_MODE_COLUMN}, a.visibility, a.status,
  ${EFFECTIVE_PRICE_COLUMNS}, a.went_live_at, a.provider_config, a.provider_secret_sealed, a.created_at, a.updated_at, a.caller_tools,
  coalesce(nullif(c.display_name, ''), nullif(u.display_name, ''), u.username) AS creator_name
  FROM apps a JOIN users u ON u.id = a.owner_id LEFT JOIN creators c ON c.user_id = a.owner_id`;

export async function selectAppBySlug(db: Queryable, slug: string): Promise<AppRow | null> {
  const { rows } = await db.query<AppRow>(`${APP_SELECT} WHERE a.slug = $1 AND a.deleted_at IS NULL`, [slug]);
  return rows[0] ?? null;
}

/** One page of the owner's apps, newest first. */
export async function selectAppsByOwner(db: Queryable, ownerId: string, page: PageRequest): Promise<Page<AppRow>> {
  const older = keysetBefore({ at: 'a.created_at', id: 'a.id', idType: 'uuid' }, decodeKeysetCursor(page.cursor), 3);
  const { rows } = await db.query<AppRow & { cursor_at: string }>(
    `${APP_SELECT.replace('SELECT ', `SELECT ${keysetAtSql('a.created_at')} AS cursor_at, `)}
     WHERE a.owner_id = $1 AND a.deleted_at IS NULL ${older.sql}
     ORDER BY a.created_at DESC, a.id DESC LIMIT $2`,
    [ownerId, page.limit + 1, ...older.params],
  );
  return takeKeysetPage(rows, page.limit);
}

/** Slugs already used by base or base-N, deleted apps included (slugs are never reused). */
export async function selectTakenSlugs(db: Queryable, base: string): Promise<Set<string>> {
  const { rows } = await db.query<{ slug: string }>("SELECT slug FROM apps WHERE slug = $1 OR slug ~ ('^' || $1 || '-[0-9]+$')", [base]);
  return new Set(rows.map((row) => row.slug));
}

export interface NewApp {
  ownerId: string;
  name: string;
  slug: string;
  description: string;
  type: string;
  interactionMode: string;
  visibility: string;
  status: string;
  priceCents: number;
  pricing: RateCard | null;
  providerConfig: Record<string, string>;
  providerSecretSealed: string | null;
}

export async function insertApp(db: Queryable, app: NewApp): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO apps (owner_id, name, slug, description, type, interaction_mode, visibility, status, price_cents, provider_config, provider_secret_sealed, went_live_at, pricing)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, CASE WHEN $8 = 'live' THEN now() END, $12::jsonb) RETURNING id`,
    [
      app.ownerId,
      app.name,
      app.slug,
      app.description,
      app.type,
      app.interactionMode,
      app.visibility,
      app.status,
      app.priceCents,
      JSON.stringify(app.providerConfig),
      app.providerSecretSealed,
      app.pricing ? JSON.stringify(app.pricing) : null,
    ],
  );
  return rows[0]!.id;
}

export async function softDeleteApp(db: Queryable, appId: string): Promise<void> {
  await db.query('UPDATE apps SET deleted_at = now(), updated_at = now() WHERE id = $1', [appId]);
}

/**
 * Who the price notice protects (decision 0110): calls by anyone but the owner in the last
 * `noticeDays` days (successful or not: a caller who tried is a caller), and live subscriptions.
 */
export async function selectPriceNoticeAudience(
  db: Queryable,
  appId: string,
  ownerId: string,
  noticeDays: number,
): Promise<{ calls: number; subscribers: number; typicalModelCostMicros: number | null }> {
  const { rows } = await db.query<{ calls: number; subscribers: number; typical: number | string | null }>(
    `SELECT
       (SELECT count(*)::int FROM invocations
         WHERE app_id = $1 AND created_at > now() - make_interval(days => $3::int) AND caller_id IS DISTINCT FROM $2 AND status = 'success') AS calls,
       (SELECT count(*)::int FROM subscriptions WHERE app_id = $1 AND status IN ('active', 'trialing', 'past_due')) AS subscribers,
       (SELECT avg(recent.model_cost_micros)::float8 FROM
          (SELECT status, demo, model_cost_micros FROM invocations WHERE app_id = $1 ORDER BY created_at DESC, id DESC LIMIT 200) recent
         WHERE recent.status = 'success' AND NOT recent.demo AND recent.model_cost_micros > 0) AS typical`,
    [appId, ownerId, noticeDays],
  );
  const row = rows[0];
  return { calls: row?.calls ?? 0, subscribers: row?.subscribers ?? 0, typicalModelCostMicros: row?.typical == null ? null : Math.ceil(Number(row.typical)) };
}
