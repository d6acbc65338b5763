// SQL of the prompt configuration: the model settings (prompt_configs, one row per prompt app) and
// the numbered versions of the prompt text and schemas (prompt_versions). What a change is and
// which version is active are decided in service.ts.
import type { IoSchema } from '@tollbooth/contract';
import type { Queryable } from '../db/client.ts';

export interface ModelSettingsRow {
  model: string;
  temperature: number;
  max_tokens: number;
  top_p: number;
  frequency_penalty: number;
  presence_penalty: number;
}

export interface ConfigRow extends ModelSettingsRow {
  active_version: number;
  /** 'platform' or 'own' (bring your own key, migration 0020). */
  key_source: string;
}

export interface VersionRow {
  version: number;
  system_prompt: string;
  prompt_template: string;
  input_schema: IoSchema;
  output_schema: IoSchema | null;
  changelog: string;
  created_at: Date;
}

/** A version's prompt text and schemas. */
export type PromptText = Pick<VersionRow, 'system_prompt' | 'prompt_template' | 'input_schema' | 'output_schema'>;

const CONFIG_COLUMNS = 'model, temperature, max_tokens, top_p, frequency_penalty, presence_penalty, active_version, key_source';
const VERSION_COLUMNS = 'version, system_prompt, prompt_template, input_schema, output_schema, changelog, created_at';

const schemaJson = (schema: IoSchema | null) => (schema === null ? null : JSON.stringify(schema));

/** A new prompt app's configuration with version 1 active; nothing when the app already has one. */
export async function insertFirstPromptConfig(tx: Queryable, appId: string, settings: ModelSettingsRow, first: Omit<PromptText, 'output_schema'>) {
  await tx.query(
    `INSERT INTO prompt_configs (app_id, model, temperature, max_tokens, top_p, frequency_penalty, presence_penalty, active_version)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 1) ON CONFLICT (app_id) DO NOTHING`,
    [appId, settings.model, settings.temperature, settings.max_tokens, settings.top_p, settings.frequency_penalty, settings.presence_penalty],
  );
  await tx.query(
    `INSERT INTO prompt_versions (app_id, version, system_prompt, prompt_template, input_schema, output_schema, changelog)
     VALUES ($1, 1, $2, $3, $4, NULL, 'Initial version') ON CONFLICT DO NOTHING`,
    [appId, first.system_prompt, first.prompt_template, JSON.stringify(first.input_schema)],
  );
}

/** The configuration and every version, copied to another app. */
export async function copyPromptRows(tx: Queryable, fromAppId: string, toAppId: string) {
  await tx.query(
    `INSERT INTO prompt_configs (app_id, model, temperature, max_tokens, top_p, frequency_penalty, presence_penalty, active_version, key_source)
     SELECT $2, model, temperature, max_tokens, top_p, frequency_penalty, presence_penalty, active_version, key_source FROM prompt_configs WHERE app_id = $1`,
    [fromAppId, toAppId],
  );
  await tx.query(
    `INSERT INTO prompt_versions (app_id, version, system_prompt, prompt_template, input_schema, output_schema, changelog, created_at)
     SELECT $2, version, system_prompt, prompt_template, input_schema, output_schema, changelog, created_at FROM prompt_versions WHERE app_id = $1`,
    [fromAppId, toAppId],
  );
}

export async function selectPromptConfig(q: Queryable, appId: string, forUpdate = false): Promise<ConfigRow | null> {
  const { rows } = await q.query<ConfigRow>(`SELECT ${CONFIG_COLUMNS} FROM prompt_configs WHERE app_id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [appId]);
  return rows[0] ?? null;
}

export async function selectPromptVersion(q: Queryable, appId: string, version: number): Promise<VersionRow | null> {
  const { rows } = await q.query<VersionRow>(`SELECT ${VERSION_COLUMNS} FROM prompt_versions WHERE app_id = $1 AND version = $2`, [appId, version]);
  return rows[0] ?? null;
}

/** The configuration with its active version, in one round trip (the gateway's hot path). */
export async function selectActivePromptConfig(q: Queryable, appId: string): Promise<(ConfigRow & VersionRow) | null> {
  const { rows } = await q.query<ConfigRow & VersionRow>(
    `SELECT c.model, c.temperature, c.max_tokens, c.top_p, c.frequency_penalty, c.presence_penalty, c.active_version, c.key_source,
       v.version, v.system_prompt, v.prompt_template, v.input_schema, v.output_schema, v.changelog, v.created_at
     FROM prompt_configs c JOIN prompt_versions v ON v.app_id = c.app_id AND v.version = c.active_version
     WHERE c.app_id = $1`,
    [appId],
  );
  return rows[0] ?? null;
}

/** Newest first. */
export async function selectPromptVersions(q: Queryable, appId: string): Promise<VersionRow[]> {
  const { rows } = await q.query<VersionRow>(`SELECT ${VERSION_COLUMNS} FROM prompt_versions WHERE app_id = $1 ORDER BY version DESC`, [appId]);
  return rows;
}

/** Adds the next version (one more than the highest) and returns its number; the caller holds the configuration's lock. */
export async function insertNextPromptVersion(tx: Queryable, appId: string, text: PromptText, changelog: string): Promise<number> {
  const { rows } = await tx.query<{ next: number }>('SELECT coalesce(max(version), 0) + 1 AS next FROM prompt_versions WHERE app_id = $1', [appId]);
  const version = rows[0]!.next;
  await tx.query(
    `INSERT INTO prompt_versions (app_id, version, system_prompt, prompt_template, input_schema, output_schema, changelog)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [appId, version, text.system_prompt, text.prompt_template, JSON.stringify(text.input_schema), schemaJson(text.output_schema), changelog],
  );
  return version;
}

export async function updatePromptSettings(tx: Queryable, appId: string, settings: ModelSettingsRow, activeVersion: number) {
  await tx.query(
    `UPDATE prompt_configs SET model = $2, temperature = $3, max_tokens = $4, top_p = $5, frequency_penalty = $6,
       presence_penalty = $7, active_version = $8, updated_at = now() WHERE app_id = $1`,
    [appId, settings.model, settings.temperature, settings.max_tokens, settings.top_p, settings.frequency_penalty, settings.presence_penalty, activeVersion],
  );
}

export async function updateActiveVersion(tx: Queryable, appId: string, version: number) {
  await tx.query('UPDATE prompt_configs SET active_version = $2, updated_at = now() WHERE app_id = $1', [appId, version]);
}

/**
 * The mean model cost of the app's successful calls to `model` on the platform keys (demo answers
 * and calls without a model cost left out) among its newest `window` calls: one bounded index range.
 */
export async function selectTypicalModelCost(db: Queryable, appId: string, model: string, window: number): Promise<{ calls: number; mean_micros: number }> {
  const { rows } = await db.query<{ calls: number; mean_micros: number | string | null }>(
    `SELECT count(*)::int AS calls, avg(recent.model_cost_micros)::float8 AS mean_micros
     FROM (SELECT status, demo, model, model_cost_micros FROM invocations WHERE app_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2) recent
     WHERE recent.status = 'success' AND NOT recent.demo AND recent.model_cost_micros > 0 AND recent.model = $3`,
    [appId, window, model],
  );
  return { calls: rows[0]?.calls ?? 0, mean_micros: Number(rows[0]?.mean_micros ?? 0) };
}

/** Whether the app's model calls go to the platform's keys ('platform') or its owner's own key ('own'). */
export async function updateKeySource(tx: Queryable, appId: string, keySource: string) {
  await tx.query('UPDATE prompt_configs SET key_source = $2, updated_at = now() WHERE app_id = $1', [appId, keySource]);
}
