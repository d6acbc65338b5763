// SQL of the workflow configuration: the current configuration (apps columns + workflow_configs),
// its numbered versions, and the conversation mapping to the provider's conversations.
import type { Queryable } from '../db/client.ts';
import type { WorkflowAppInfo } from '../providers/workflows/types.ts';

export interface WorkflowConfigRow {
  provider: string;
  provider_config: Record<string, string>;
  provider_secret_sealed: string | null;
  timeout_seconds: number;
  max_iterations: number;
  enable_logging: boolean;
  app_info: WorkflowAppInfo | null;
  app_info_source: string | null;
  active_version: number;
  updated_at: Date;
}

export interface WorkflowVersionRow extends Omit<WorkflowConfigRow, 'active_version' | 'updated_at'> {
  version: number;
  changelog: string;
  created_at: Date;
}

export const DEFAULT_WORKFLOW_SETTINGS = { timeout_seconds: 300, max_iterations: 10, enable_logging: true } as const;

/** The current configuration; a workflow app without a row yet (made before 0012) gets the defaults. */
export async function selectWorkflowConfig(db: Queryable, appId: string, forUpdate = false): Promise<WorkflowConfigRow> {
  const sql = `SELECT coalesce(w.provider, 'dify') AS provider, a.provider_config, a.provider_secret_sealed,
      coalesce(w.timeout_seconds, 300) AS timeout_seconds, coalesce(w.max_iterations, 10) AS max_iterations,
      coalesce(w.enable_logging, true) AS enable_logging, w.app_info, w.app_info_source,
      coalesce(w.active_version, 1) AS active_version, coalesce(w.updated_at, a.updated_at) AS updated_at
    FROM apps a LEFT JOIN workflow_configs w ON w.app_id = a.id WHERE a.id = $1${forUpdate ? ' FOR UPDATE OF a' : ''}`;
  const { rows } = await db.query<WorkflowConfigRow>(sql, [appId]);
  return rows[0]!;
}

/** Creates the configuration row and version 1 from the app's provider settings (idempotent). */
export async function insertInitialWorkflowConfig(db: Queryable, appId: string): Promise<void> {
  await db.query('INSERT INTO workflow_configs (app_id) VALUES ($1) ON CONFLICT (app_id) DO NOTHING', [appId]);
  await db.query(
    `INSERT INTO workflow_versions (app_id, version, provider, provider_config, provider_secret_sealed, timeout_seconds, max_iterations, enable_logging, app_info, app_info_source, changelog)
     SELECT a.id, 1, w.provider, a.provider_config, a.provider_secret_sealed, w.timeout_seconds, w.max_iterations, w.enable_logging, w.app_info, w.app_info_source, 'Initial version'
     FROM apps a JOIN workflow_configs w ON w.app_id = a.id WHERE a.id = $1
     ON CONFLICT DO NOTHING`,
    [appId],
  );
}

export async function copyWorkflowRows(db: Queryable, fromAppId: string, toAppId: string): Promise<void> {
  await db.query(
    `INSERT INTO workflow_configs (app_id, provider, timeout_seconds, max_iterations, enable_logging, app_info, app_info_source, active_version)
     SELECT $2, provider, timeout_seconds, max_iterations, enable_logging, app_info, app_info_source, active_version FROM workflow_configs WHERE app_id = $1`,
    [fromAppId, toAppId],
  );
  await db.query(
    `INSERT INTO workflow_versions (app_id, version, provider, provider_config, provider_secret_sealed, timeout_seconds, max_iterations, enable_logging, app_info, app_info_source, changelog, created_at)
     SELECT $2, version, provider, provider_config, provider_secret_sealed, timeout_seconds, max_iterations, enable_logging, app_info, app_info_source, changelog, created_at
     FROM workflow_versions WHERE app_id = $1`,
    [fromAppId, toAppId],
  );
}

export interface WorkflowState {
  provider: string;
  providerConfig: Record<string, string>;
  providerSecretSealed: string | null;
  timeoutSeconds: number;
  maxIterations: number;
  enableLogging: boolean;
  appInfo: WorkflowAppInfo | null;
  appInfoSource: string | null;
}

/** Makes a state current and records it as the next version, in the caller's transaction. */
export async function writeWorkflowState(tx: Queryable, appId: string, state: WorkflowState, changelog: string): Promise<number> {
  await tx.query('UPDATE apps SET provider_config = $2, provider_secret_sealed = $3, updated_at = now() WHERE id = $1', [
    appId,
    JSON.stringify(state.providerConfig),
    state.providerSecretSealed,
  ]);
  const { rows } = await tx.query<{ next: number }>('SELECT coalesce(max(version), 0) + 1 AS next FROM workflow_versions WHERE app_id = $1', [appId]);
  const version = rows[0]!.next;
  const appInfo = state.appInfo ? JSON.stringify(state.appInfo) : null;
  await tx.query(
    `INSERT INTO workflow_configs (app_id, provider, timeout_seconds, max_iterations, enable_logging, app_info, app_info_source, active_version, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now())
     ON CONFLICT (app_id) DO UPDATE SET provider = EXCLUDED.provider, timeout_seconds = EXCLUDED.timeout_seconds,
       max_iterations = EXCLUDED.max_iterations, enable_logging = EXCLUDED.enable_logging, app_info = EXCLUDED.app_info,
       app_info_source = EXCLUDED.app_info_source, active_version = EXCLUDED.active_version, updated_at = now()`,
    [appId, state.provider, state.timeoutSeconds, state.maxIterations, state.enableLogging, appInfo, state.appInfoSource, version],
  );
  await tx.query(
    `INSERT INTO workflow_versions (app_id, version, provider, provider_config, provider_secret_sealed, timeout_seconds, max_iterations, enable_logging, app_info, app_info_source, changelog)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [
      appId,
      version,
      state.provider,
      JSON.stringify(state.providerConfig),
      state.providerSecretSealed,
      state.timeoutSeconds,
      state.maxIterations,
      state.enableLogging,
      appInfo,
      state.appInfoSource,
      changelog,
    ],
  );
  return version;
}

/** Caches what the provider said about the app for the current configuration (and its version). */
export async function updateCachedAppInfo(db: Queryable, appId: string, source: string, appInfo: WorkflowAppInfo): Promise<void> {
  await db.query(
    `WITH config AS (
       INSERT INTO workflow_configs (app_id, app_info, app_info_source) VALUES ($1, $2, $3)
       ON CONFLICT (app_id) DO UPDATE SET app_info = EXCLUDED.app_info, app_info_source = EXCLUDED.app_info_source
       RETURNING active_version
     )
     UPDATE workflow_versions v SET app_info = $2, app_info_source = $3 FROM config
     WHERE v.app_id = $1 AND v.version = config.active_version`,
    [appId, JSON.stringify(appInfo), source],
  );
}

export async function selectWorkflowVersions(db: Queryable, appId: string): Promise<WorkflowVersionRow[]> {
  const { rows } = await db.query<WorkflowVersionRow>(
    `SELECT version, provider, provider_config, provider_secret_sealed, timeout_seconds, max_iterations, enable_logging, app_info, app_info_source, changelog, created_at
     FROM workflow_versions WHERE app_id = $1 ORDER BY version DESC`,
    [appId],
  );
  return rows;
}

export async function selectWorkflowVersion(db: Queryable, appId: string, version: number): Promise<WorkflowVersionRow | null> {
  const { rows } = await db.query<WorkflowVersionRow>(
    `SELECT version, provider, provider_config, provider_secret_sealed, timeout_seconds, max_iterations, enable_logging, app_info, app_info_source, changelog, created_at
     FROM workflow_versions WHERE app_id = $1 AND version = $2`,
    [appId, version],
  );
  return rows[0] ?? null;
}

export interface ConversationRow {
  id: string;
  app_id: string;
  caller_id: string;
  end_user: string;
  upstream_conversation_id: string | null;
  turns: number;
}

export async function selectConversation(db: Queryable, id: string): Promise<ConversationRow | null> {
  const { rows } = await db.query<ConversationRow>('SELECT id, app_id, caller_id, end_user, upstream_conversation_id, turns FROM conversations WHERE id = $1', [
    id,
  ]);
  return rows[0] ?? null;
}

/** A new conversation, before its first call (so its id can be streamed at once). */
export async function insertConversation(db: Queryable, conversation: { id: string; appId: string; callerId: string; endUser: string }): Promise<void> {
  await db.query('INSERT INTO conversations (id, app_id, caller_id, end_user) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING', [
    conversation.id,
    conversation.appId,
    conversation.callerId,
    conversation.endUser,
  ]);
}

/** One more answered turn; remembers the provider's conversation id. */
export async function recordConversationTurn(db: Queryable, id: string, upstreamConversationId: string | null): Promise<void> {
  await db.query(
    'UPDATE conversations SET turns = turns + 1, upstream_conversation_id = coalesce($2, upstream_conversation_id), updated_at = now() WHERE id = $1',
    [id, upstreamConversationId],
  );
}
