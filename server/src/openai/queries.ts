import type { IoSchema } from '@tollbooth/contract';
import type { AppRow, PricedAppColumns } from '../apps/service.ts';
import type { Queryable } from '../db/client.ts';
import type { InputFormEntry } from '../providers/workflows/types.ts';

export interface CallableModelRow extends Pick<AppRow, PricedAppColumns | 'interaction_mode' | 'created_at'> {
  /** Workflow apps: the provider's mode (Dify: chat, advanced-chat, completion, workflow…) once checked. */
  workflow_mode: string | null;
  creator_name: string;
  caller_tools: boolean;
  /** Prompt apps: the active version's input schema, template and output schema. */
  input_schema: IoSchema | null;
  prompt_template: string | null;
  output_schema: IoSchema | null;
  /** Workflow apps: the provider's input form once checked. */
  user_input_form: InputFormEntry[] | null;
}

export interface ChargeRow {
  id: string;
  slug: string;
  status: 'success' | 'error';
  error_type: string;
  mode: string;
  price_cents: number;
  input_tokens: number;
  output_tokens: number;
  latency_ms: number;
  api_key_id: string | null;
  demo: boolean;
  created_at: Date;
}

/** One of the caller's own calls (its invocation), by id. */
export async function selectCallerCharge(db: Queryable, userId: string, invocationId: string): Promise<ChargeRow | null> {
  const { rows } = await db.query<ChargeRow>(
    `SELECT i.id, a.slug, i.status, i.error_type, i.mode, i.price_cents::int AS price_cents, i.input_tokens, i.output_tokens, i.latency_ms,
       i.api_key_id, i.demo, i.created_at
     FROM invocations i JOIN apps a ON a.id = i.app_id WHERE i.id = $1 AND i.caller_id = $2`,
    [invocationId, userId],
  );
  return rows[0] ?? null;
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
       CASE WHEN a.upcoming_price_at <= now() THEN a.upcoming_pricing ELSE a.pricing END AS pricing,
       a.created_at, a.caller_tools,
       coalesce(nullif(c.display_name, ''), nullif(u.display_name, ''), u.username) AS creator_name,
       v.input_schema, v.prompt_template, v.output_schema, w.app_info->'user_input_form' AS user_input_form
     FROM apps a JOIN users u ON u.id = a.owner_id LEFT JOIN creators c ON c.user_id = a.owner_id
       LEFT JOIN workflow_configs w ON w.app_id = a.id
       LEFT JOIN prompt_configs pc ON pc.app_id = a.id LEFT JOIN prompt_versions v ON v.app_id = a.id AND v.version = pc.active_version
     WHERE a.deleted_at IS NULL
       AND CASE WHEN $2::uuid IS NULL THEN a.owner_id = $1 OR (a.visibility = 'public' AND a.status = 'live') ELSE a.id = $2::uuid END
     ORDER BY (a.owner_id = $1) DESC, a.created_at DESC, a.id DESC
     LIMIT ${MAX_LISTED_MODELS}`,
    [userId, appId],
  );
  return rows;
}
