import type { Queryable } from '../db/client.ts';

export interface CallableModelRow {
  id: string;
  owner_id: string;
  slug: string;
  name: string;
  description: string;
  type: 'prompt' | 'workflow';
  interaction_mode: 'completion' | 'chat';
  /** Workflow apps: the provider's mode (Dify: chat, advanced-chat, completion, workflow…) once checked. */
  workflow_mode: string | null;
  price_cents: number;
  upcoming_price_cents: number | null;
  upcoming_price_at: Date | null;
  created_at: Date;
  creator_name: string;
}

/** More than any caller scrolls through; GET /v1/models answers one page, as OpenAI's does. */
export const MAX_LISTED_MODELS = 1000;

/**
 * The apps a user may call: their own, whatever their status, then other creators' live public
 * apps, newest first (embed apps are callable but not listed). With appId: that app only, whose
 * access the caller has already checked.
 */
export async function selectCallableModels(db: Queryable, userId: string, appId: string | null = null): Promise<CallableModelRow[]> {
  const { rows } = await db.query<CallableModelRow>(
    `SELECT a.id, a.owner_id, a.slug, a.name, a.description, a.type, a.interaction_mode, w.app_info->>'mode' AS workflow_mode,
       CASE WHEN a.upcoming_price_at <= now() THEN a.upcoming_price_cents ELSE a.price_cents END AS price_cents,
       CASE WHEN a.upcoming_price_at > now() THEN a.upcoming_price_cents END AS upcoming_price_cents,
       CASE WHEN a.upcoming_price_at > now() THEN a.upcoming_price_at END AS upcoming_price_at,
       a.created_at,
       coalesce(nullif(c.display_name, ''), nullif(u.display_name, ''), u.username) AS creator_name
     FROM apps a JOIN users u ON u.id = a.owner_id LEFT JOIN creators c ON c.user_id = a.owner_id
       LEFT JOIN workflow_configs w ON w.app_id = a.id
     WHERE a.deleted_at IS NULL
       AND CASE WHEN $2::uuid IS NULL THEN a.owner_id = $1 OR (a.visibility = 'public' AND a.status = 'live') ELSE a.id = $2::uuid END
     ORDER BY (a.owner_id = $1) DESC, a.created_at DESC, a.id DESC
     LIMIT ${MAX_LISTED_MODELS}`,
    [userId, appId],
  );
  return rows;
}
