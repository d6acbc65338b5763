// Workflow configuration rules: the provider and its settings (secrets sealed, returned masked,
// a mask sent back keeps the stored secret), timeout / max iterations / logging, the provider's
// description of the app (mode and input form) checked and cached at test and save time, and
// numbered versions with rollback (a rollback is itself a new version, so history is never lost).
import type {
  WorkflowConfig,
  WorkflowConfigUpdate,
  WorkflowProviderInfo,
  WorkflowTestResult,
  WorkflowVersion,
  WorkflowVersionCreate,
  WorkflowVersionList,
} from '@tollbooth/contract';
import type { AppRow } from '../apps/service.ts';
import { decryptSecret, encryptSecret, maskSecret } from '../crypto/secrets.ts';
import type { Database, Queryable } from '../db/client.ts';
import { CALL_TARGET_TTL_MS, type Config } from '../platform/config.ts';
import { AppError, invalidParam } from '../platform/errors.ts';
import { DEFAULT_WORKFLOW_PROVIDER, type WorkflowProviderRegistry } from '../providers/workflows/registry.ts';
import { checkProviderUrl } from '../providers/workflows/safe-http.ts';
import type { ProviderSettings, WorkflowAppInfo, WorkflowProvider } from '../providers/workflows/types.ts';
import {
  copyWorkflowRows,
  insertInitialWorkflowConfig,
  selectWorkflowConfig,
  selectWorkflowVersion,
  selectWorkflowVersions,
  updateCachedAppInfo,
  type WorkflowConfigRow,
  type WorkflowState,
  type WorkflowVersionRow,
  writeWorkflowState,
} from './queries.ts';

const CALL_CONFIG_MAX_ENTRIES = 10_000;

/** A Dify stream event in the caller's shape (stream-events.ts), for the gateway's streams. */
export { toCallerEvent } from './stream-events.ts';

export const workflowNotFound = () => new AppError('not_found', 'Workflow not found');

/** The settings the cached app info was fetched for: a different URL or app id makes it stale. */
export const appInfoSourceOf = (settings: Record<string, string>) => `${settings.base_url ?? ''}|${settings.app_id ?? ''}`;

const looksMasked = (value: string) => value.startsWith('••••');

/** Everything the gateway needs for one call to a workflow app, secrets in clear (memory only). */
export interface WorkflowCallConfig {
  provider: WorkflowProvider;
  settings: ProviderSettings;
  timeoutMs: number;
  maxIterations: number;
  enableLogging: boolean;
  /** Null when never checked, or checked for other settings. */
  appInfo: WorkflowAppInfo | null;
}

/** The settings a version records, secrets compared in clear (a re-typed key seals differently). */
function sameSettings(
  a: Pick<WorkflowState, 'provider' | 'providerConfig' | 'providerSecretSealed' | 'timeoutSeconds' | 'maxIterations' | 'enableLogging'>,
  b: Pick<WorkflowState, 'provider' | 'providerConfig' | 'providerSecretSealed' | 'timeoutSeconds' | 'maxIterations' | 'enableLogging'>,
  secretKey: Buffer,
): boolean {
  const canonical = (config: Record<string, string>) =>
    JSON.stringify(
      Object.keys(config)
        .filter((name) => config[name] !== undefined && config[name] !== '')
        .sort()
        .map((name) => [name, config[name]]),
    );
  const secret = (sealed: string | null) => (sealed ? decryptSecret(secretKey, sealed) : null);
  return (
    a.provider === b.provider &&
    canonical(a.providerConfig) === canonical(b.providerConfig) &&
    a.timeoutSeconds === b.timeoutSeconds &&
    a.maxIterations === b.maxIterations &&
    a.enableLogging === b.enableLogging &&
    (a.providerSecretSealed === b.providerSecretSealed || secret(a.providerSecretSealed) === secret(b.providerSecretSealed))
  );
}

const stateOfRow = (row: WorkflowConfigRow | WorkflowVersionRow): WorkflowState => ({
  provider: row.provider,
  providerConfig: row.provider_config,
  providerSecretSealed: row.provider_secret_sealed,
  timeoutSeconds: row.timeout_seconds,
  maxIterations: row.max_iterations,
  enableLogging: row.enable_logging,
  appInfo: row.app_info,
  appInfoSource: row.app_info_source,
});

/**
 * After the app's provider settings changed outside PATCH /workflow/ (PATCH /api/app/{slug}/ with
 * provider_config), in the same transaction: records the current configuration as a new version
 * when it differs from the active one, so every configuration a call ran with is in the history.
 */
export async function recordWorkflowVersionIfChanged(tx: Queryable, secretKey: Buffer, appId: string, changelog: string): Promise<number | null> {
  const current = await selectWorkflowConfig(tx, appId, true);
  const active = await selectWorkflowVersion(tx, appId, current.active_version);
  if (active && sameSettings(stateOfRow(current), stateOfRow(active), secretKey)) return null;
  return writeWorkflowState(tx, appId, stateOfRow(current), changelog);
}

export async function createInitialWorkflowConfig(tx: Queryable, appId: string) {
  await insertInitialWorkflowConfig(tx, appId);
}

export const copyWorkflowConfig = (tx: Queryable, fromAppId: string, toAppId: string) => copyWorkflowRows(tx, fromAppId, toAppId);

export function createWorkflowsService({
  db,
  config,
  providers,
  onChange = () => {},
  callConfigTtlMs = CALL_TARGET_TTL_MS,
  now = Date.now,
}: {
  db: Database;
  config: Config;
  providers: WorkflowProviderRegistry;
  /** How long a process may answer calls from its cached configuration after another process changed it. */
  callConfigTtlMs?: number;
  /** The clock of the cache (tests move it). */
  now?: () => number;
  /** Told after an app's workflow configuration changed (caches forget it). */
  onChange?: (appId: string) => void;
}) {
  // The gateway's view of each app, per process, like the prompt apps' call targets: a paid call
  // reads no configuration row. Changes through this process forget it at once (a load that was
  // under way when they happened is not kept); another process sees them within the TTL.
  const callConfigs = new Map<string, { config: WorkflowCallConfig; expiresAt: number }>();
  const changes = new Map<string, number>();
  const forgetCallConfig = (appId: string) => {
    callConfigs.delete(appId);
    changes.set(appId, (changes.get(appId) ?? 0) + 1);
    if (changes.size > CALL_CONFIG_MAX_ENTRIES) changes.clear();
  };
  const changed = (appId: string) => {
    forgetCallConfig(appId);
    onChange(appId);
  };

  const providerInfo = (provider: WorkflowProvider): WorkflowProviderInfo => ({
    id: provider.id,
    name: provider.name,
    description: provider.description,
    slug: provider.slug,
    config_schema: provider.configSchema,
  });

  const providerOrThrow = (id: string, field = 'provider') => {
    const provider = providers.get(id);
    if (!provider)
      throw invalidParam(
        field,
        `unknown provider "${id}"; known providers are ${providers
          .list()
          .map((p) => p.id)
          .join(', ')}`,
      );
    return provider;
  };

  const secretFieldOf = (provider: WorkflowProvider) => Object.entries(provider.configSchema.properties).find(([, field]) => field.secret)?.[0] ?? null;

  const reveal = (sealed: string | null) => (sealed ? decryptSecret(config.secretKey, sealed) : null);

  /** The configuration as stored, with the secret in clear. */
  const settingsOf = (provider: WorkflowProvider, providerConfig: Record<string, string>, sealed: string | null): ProviderSettings => {
    const settings: ProviderSettings = {};
    for (const [name, field] of Object.entries(provider.configSchema.properties)) {
      if (field.secret) settings[name] = reveal(sealed) ?? '';
      else settings[name] = providerConfig[name] ?? field.default ?? '';
    }
    return settings;
  };

  const maskedConfig = (provider: WorkflowProvider | null, providerConfig: Record<string, string>, sealed: string | null) => {
    const view: Record<string, string> = { ...providerConfig };
    if (!provider) return view;
    for (const [name, field] of Object.entries(provider.configSchema.properties)) {
      if (field.secret) {
        const secret = reveal(sealed);
        view[name] = secret ? maskSecret(secret) : '';
      } else view[name] = providerConfig[name] ?? field.default ?? '';
    }
    return view;
  };

  /**
   * The settings a request means: its fields over the stored ones, a masked secret meaning "keep
   * the stored one". Checks required fields, unknown fields and the URL rule (SSRF).
   */
  const resolveSettings = async (provider: WorkflowProvider, input: Record<string, string>, stored: ProviderSettings | null): Promise<ProviderSettings> => {
    const settings: ProviderSettings = {};
    for (const name of Object.keys(input)) {
      if (!(name in provider.configSchema.properties)) throw invalidParam(`provider_config.${name}`, `is not a setting of ${provider.name}`);
    }
    for (const [name, field] of Object.entries(provider.configSchema.properties)) {
      const given = input[name]?.trim();
      let value: string;
      if (given === undefined) value = stored?.[name] ?? field.default ?? '';
      else if (field.secret && looksMasked(given)) value = stored?.[name] ?? '';
      else value = given;
      if (value === '' && field.default !== undefined && !field.secret) value = field.default;
      if (value === '' && provider.configSchema.required.includes(name)) throw invalidParam(`provider_config.${name}`, 'is required');
      settings[name] = value;
    }
    if (settings.base_url !== undefined) {
      const url = await checkProviderUrl(settings.base_url, config.allowPrivateProviderUrls);
      settings.base_url = url.href.replace(/\/+$/, '');
    }
    return settings;
  };

  const splitSettings = (provider: WorkflowProvider, settings: ProviderSettings) => {
    const providerConfig: Record<string, string> = {};
    let secret: string | null = null;
    for (const [name, field] of Object.entries(provider.configSchema.properties)) {
      if (field.secret) secret = settings[name] || null;
      else providerConfig[name] = settings[name] ?? '';
    }
    return { providerConfig, providerSecretSealed: secret ? encryptSecret(config.secretKey, secret) : null };
  };

  const toView = (row: WorkflowConfigRow): WorkflowConfig => {
    const provider = providers.get(row.provider);
    const source = provider ? appInfoSourceOf(settingsOf(provider, row.provider_config, null)) : null;
    return {
      provider: provider ? providerInfo(provider) : null,
      provider_config: maskedConfig(provider, row.provider_config, row.provider_secret_sealed),
      timeout_seconds: row.timeout_seconds,
      max_iterations: row.max_iterations,
      enable_logging: row.enable_logging,
      app_info: row.app_info && row.app_info_source === source ? row.app_info : null,
      active_version: row.active_version,
      updated_at: row.updated_at.toISOString(),
    };
  };

  /** Asks the provider about the app; the answer for the test result, never a 500. */
  const check = async (
    provider: WorkflowProvider,
    settings: ProviderSettings,
    hop: string,
  ): Promise<Omit<WorkflowTestResult, 'app_info'> & { app_info: WorkflowAppInfo | null }> => {
    try {
      const appInfo = await provider.checkConfiguration(settings, AbortSignal.timeout(20_000), hop);
      const modeNote = appInfo.mode ? ` (${appInfo.mode})` : '';
      return { success: true, message: `Connected to ${provider.name} app "${appInfo.name}"${modeNote}`, error: null, app_info: appInfo };
    } catch (error) {
      const message = error instanceof AppError ? error.message : 'The provider could not be checked';
      return { success: false, message: `${provider.name} did not accept this configuration`, error: message, app_info: null };
    }
  };

  const ensureWorkflowApp = (app: AppRow) => {
    if (app.type !== 'workflow') throw workflowNotFound();
  };

  const versionView = (row: Awaited<ReturnType<typeof selectWorkflowVersions>>[number]): WorkflowVersion => {
    const provider = providers.get(row.provider);
    return {
      version: row.version,
      provider: row.provider,
      provider_config: maskedConfig(provider, row.provider_config, row.provider_secret_sealed),
      timeout_seconds: row.timeout_seconds,
      max_iterations: row.max_iterations,
      enable_logging: row.enable_logging,
      app_info: row.app_info,
      changelog: row.changelog,
      created_at: row.created_at.toISOString(),
    };
  };

  return {
    listProviders: (): WorkflowProviderInfo[] => providers.list().map(providerInfo),

    async slugOfApp(appId: string): Promise<string | null> {
      const { rows } = await db.query<{ slug: string }>('SELECT slug FROM apps WHERE id = $1 AND deleted_at IS NULL', [appId]);
      return rows[0]?.slug ?? null;
    },

    async readConfig(app: AppRow): Promise<WorkflowConfig> {
      ensureWorkflowApp(app);
      return toView(await selectWorkflowConfig(db, app.id));
    },

    /** `hop`: the Tollbooth-Hop header of the request that saves (http/call-chain.ts), for the provider check. */
    async updateConfig(app: AppRow, input: WorkflowConfigUpdate, hop: string): Promise<WorkflowConfig> {
      ensureWorkflowApp(app);
      const current = await selectWorkflowConfig(db, app.id);
      const providerId = input.provider ?? current.provider ?? DEFAULT_WORKFLOW_PROVIDER;
      const provider = providerOrThrow(providerId);
      const stored = providerId === current.provider ? settingsOf(provider, current.provider_config, current.provider_secret_sealed) : null;
      const settings = await resolveSettings(provider, input.provider_config ?? {}, stored);
      const source = appInfoSourceOf(settings);
      // The input form is fetched at save time so calls can be checked before money moves; a
      // provider that cannot be reached now does not block saving (the gateway fetches it later).
      let appInfo = current.app_info_source === source ? current.app_info : null;
      const checked = await check(provider, settings, hop);
      if (checked.app_info) appInfo = checked.app_info;
      const { providerConfig, providerSecretSealed } = splitSettings(provider, settings);
      const next: WorkflowState = {
        provider: provider.id,
        providerConfig,
        // Keep the very same sealed value when the secret did not change.
        providerSecretSealed:
          stored && settings[secretFieldOf(provider) ?? ''] === stored[secretFieldOf(provider) ?? ''] ? current.provider_secret_sealed : providerSecretSealed,
        timeoutSeconds: input.timeout_seconds ?? current.timeout_seconds,
        maxIterations: input.max_iterations ?? current.max_iterations,
        enableLogging: input.enable_logging ?? current.enable_logging,
        appInfo,
        appInfoSource: appInfo ? source : null,
      };
      await db.transaction(async (tx) => {
        const locked = await selectWorkflowConfig(tx, app.id, true);
        // Like prompt apps: a save that changes nothing is not a new version (only the cached app info may refresh).
        if (sameSettings(next, stateOfRow(locked), config.secretKey)) {
          if (next.appInfo && next.appInfoSource) await updateCachedAppInfo(tx, app.id, next.appInfoSource, next.appInfo);
          return;
        }
        await writeWorkflowState(tx, app.id, next, input.changelog?.trim() || 'Updated configuration');
      });
      changed(app.id);
      return toView(await selectWorkflowConfig(db, app.id));
    },

    /** Checks settings against the provider; with an app, unsent or masked fields come from its stored configuration. */
    async testConfig(app: AppRow | null, input: { provider?: string; provider_config: Record<string, string> }, hop: string): Promise<WorkflowTestResult> {
      if (app) ensureWorkflowApp(app);
      const current = app ? await selectWorkflowConfig(db, app.id) : null;
      const provider = providerOrThrow(input.provider ?? current?.provider ?? DEFAULT_WORKFLOW_PROVIDER);
      const stored = current && current.provider === provider.id ? settingsOf(provider, current.provider_config, current.provider_secret_sealed) : null;
      let settings: ProviderSettings;
      try {
        settings = await resolveSettings(provider, input.provider_config, stored);
      } catch (error) {
        if (error instanceof AppError && error.code === 'invalid_param')
          return { success: false, message: 'The configuration is incomplete or not allowed', error: error.message, app_info: null };
        throw error;
      }
      const result = await check(provider, settings, hop);
      // Tested settings that are the saved ones refresh the cached input form.
      if (app && current && result.app_info && stored && JSON.stringify(settings) === JSON.stringify(stored)) {
        await updateCachedAppInfo(db, app.id, appInfoSourceOf(settings), result.app_info);
        changed(app.id);
      }
      return result;
    },

    async listVersions(app: AppRow): Promise<WorkflowVersionList> {
      ensureWorkflowApp(app);
      const current = await selectWorkflowConfig(db, app.id);
      return { active_version: current.active_version, versions: (await selectWorkflowVersions(db, app.id)).map(versionView) };
    },

    /** Snapshots the current configuration as a new version, or (rollback_to) restores an earlier one as a new version. */
    async createVersion(app: AppRow, input: WorkflowVersionCreate): Promise<WorkflowVersionList> {
      ensureWorkflowApp(app);
      await db.transaction(async (tx) => {
        await tx.query('SELECT 1 FROM apps WHERE id = $1 FOR UPDATE', [app.id]);
        let state: WorkflowState;
        let changelog = input.changelog?.trim() ?? '';
        if (input.rollback_to !== undefined) {
          const version = await selectWorkflowVersion(tx, app.id, input.rollback_to);
          if (!version) throw invalidParam('rollback_to', `version ${input.rollback_to} does not exist`);
          state = {
            provider: version.provider,
            providerConfig: version.provider_config,
            providerSecretSealed: version.provider_secret_sealed,
            timeoutSeconds: version.timeout_seconds,
            maxIterations: version.max_iterations,
            enableLogging: version.enable_logging,
            appInfo: version.app_info,
            appInfoSource: version.app_info_source,
          };
          changelog ||= `Rolled back to version ${version.version}`;
        } else {
          const current = await selectWorkflowConfig(tx, app.id);
          state = {
            provider: current.provider,
            providerConfig: current.provider_config,
            providerSecretSealed: current.provider_secret_sealed,
            timeoutSeconds: current.timeout_seconds,
            maxIterations: current.max_iterations,
            enableLogging: current.enable_logging,
            appInfo: current.app_info,
            appInfoSource: current.app_info_source,
          };
          changelog ||= 'Snapshot';
        }
        await writeWorkflowState(tx, app.id, state, changelog);
      });
      changed(app.id);
      return this.listVersions(app);
    },

    /** Forget an app's call configuration (its provider settings changed elsewhere). */
    forgetCallConfig,

    /** The gateway's view of a workflow app: provider, settings in clear, limits and the cached app info (cached for callConfigTtlMs). */
    async readCallConfig(appId: string): Promise<WorkflowCallConfig> {
      const readAt = now();
      const cached = callConfigs.get(appId);
      if (cached && cached.expiresAt > readAt) return cached.config;
      const seen = changes.get(appId) ?? 0;
      const loaded = await this.loadCallConfig(appId);
      if ((changes.get(appId) ?? 0) === seen) {
        if (callConfigs.size >= CALL_CONFIG_MAX_ENTRIES) callConfigs.clear();
        callConfigs.set(appId, { config: loaded, expiresAt: readAt + callConfigTtlMs });
      }
      return loaded;
    },

    async loadCallConfig(appId: string): Promise<WorkflowCallConfig> {
      const row = await selectWorkflowConfig(db, appId);
      const provider = providers.get(row.provider);
      if (!provider)
        throw new AppError('provider_error', `The workflow provider "${row.provider}" is not available`, undefined, undefined, 'provider_unavailable');
      const settings = settingsOf(provider, row.provider_config, row.provider_secret_sealed);
      return {
        provider,
        settings,
        timeoutMs: row.timeout_seconds * 1000,
        maxIterations: row.max_iterations,
        enableLogging: row.enable_logging,
        appInfo: row.app_info && row.app_info_source === appInfoSourceOf(settings) ? row.app_info : null,
      };
    },

    /** Fetches and caches the app info the gateway found missing or stale. */
    async refreshAppInfo(appId: string, call: WorkflowCallConfig, signal: AbortSignal, hop: string): Promise<WorkflowAppInfo> {
      const appInfo = await call.provider.checkConfiguration(call.settings, signal, hop);
      await updateCachedAppInfo(db, appId, appInfoSourceOf(call.settings), appInfo);
      changed(appId);
      return appInfo;
    },
  };
}

export type WorkflowsService = ReturnType<typeof createWorkflowsService>;
