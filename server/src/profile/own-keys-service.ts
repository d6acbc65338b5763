// Bring your own key (issue 22 item 6, decision 0032): a creator's own provider keys, one per
// kind (an OpenAI-compatible base URL and key, an Anthropic key, a Gemini key). Keys are sealed at
// rest like workflow keys and shown masked; base URLs follow the workflow URLs' private-address rule
// (ALLOW_PRIVATE_PROVIDER_URLS). Test Connection asks the provider for one token. The gateway and
// Test Prompt read an app owner's credentials through credentialsOf(), cached per process and
// forgotten on every change in any process (db/invalidation.ts, kind 'credentials').
import type {
  CredentialKind,
  ProviderCredential,
  ProviderCredentialList,
  ProviderCredentialSave,
  ProviderCredentialTest,
  ProviderCredentialTestResult,
} from '@tollbooth/contract';
import { decryptSecret, encryptSecret, maskSecret } from '../crypto/secrets.ts';
import type { Database } from '../db/client.ts';
import type { InvalidationBus } from '../db/invalidation.ts';
import { AppError, invalidParam } from '../platform/errors.ts';
import type { ModelRouter, OwnCredential, OwnCredentials } from '../providers/registry.ts';
import { BlockedAddressError, checkProviderUrl } from '../providers/workflows/safe-http.ts';
import { type CredentialRow, deleteCredential, selectCredential, selectCredentials, upsertCredential } from './own-keys-queries.ts';

export type { OwnCredentials } from '../providers/registry.ts';

const MAX_CACHED_USERS = 10_000;
const TEST_TIMEOUT_MS = 30_000;

export interface OwnKeysDependencies {
  db: Database;
  secretKey: Buffer;
  allowPrivateUrls: boolean;
  models: ModelRouter;
  /** Without it nothing is cached (every read goes to the database). */
  invalidation?: InvalidationBus;
  timeoutMs: number;
}

export function createOwnKeysService({ db, secretKey, allowPrivateUrls, models, invalidation, timeoutMs }: OwnKeysDependencies) {
  const cache = new Map<string, OwnCredentials>();
  invalidation?.on('credentials', (userId) => {
    if (userId === null) cache.clear();
    else cache.delete(userId);
  });

  const toView = (row: CredentialRow): ProviderCredential => ({
    kind: row.kind,
    base_url: row.base_url,
    api_key_masked: maskSecret(decryptSecret(secretKey, row.api_key_encrypted)),
    updated_at: row.updated_at.toISOString(),
  });
  const toCredential = (row: CredentialRow): OwnCredential => ({
    kind: row.kind,
    baseUrl: row.base_url,
    apiKey: decryptSecret(secretKey, row.api_key_encrypted),
  });

  /** The base URL as stored: checked like a workflow URL, without a trailing slash. */
  const checkBaseUrl = async (kind: CredentialKind, value: string | undefined, stored: string | null): Promise<string | null> => {
    if (kind !== 'openai') {
      if (value !== undefined && value.trim() !== '') throw invalidParam('base_url', `only an OpenAI-compatible credential has a base URL`);
      return null;
    }
    const given = value?.trim();
    if (!given) {
      if (stored) return stored;
      throw invalidParam('base_url', 'is required for an OpenAI-compatible provider, e.g. https://api.openai.com/v1');
    }
    try {
      const url = await checkProviderUrl(given, allowPrivateUrls, 'base_url');
      return url.href.replace(/\/+$/, '');
    } catch (error) {
      // The workflow rule's error names the workflow form's field; here the field is base_url.
      if (error instanceof BlockedAddressError) throw new AppError('invalid_param', error.message, 'base_url', undefined, 'provider_url_blocked');
      throw error;
    }
  };

  const changed = (userId: string, previous: CredentialRow | null) => {
    if (previous) models.forgetCredential(toCredential(previous));
    invalidation?.invalidate('credentials', userId);
    cache.delete(userId);
  };

  return {
    async list(userId: string): Promise<ProviderCredentialList> {
      return { results: (await selectCredentials(db, userId)).map(toView) };
    },

    async save(userId: string, kind: CredentialKind, body: ProviderCredentialSave): Promise<ProviderCredential> {
      const stored = await selectCredential(db, userId, kind);
      const baseUrl = await checkBaseUrl(kind, body.base_url, stored?.base_url ?? null);
      const apiKey = body.api_key?.trim();
      if (body.api_key !== undefined && !apiKey) throw invalidParam('api_key', 'must not be blank');
      if (!apiKey && !stored) throw invalidParam('api_key', 'is required');
      const sealed = apiKey ? encryptSecret(secretKey, apiKey) : stored!.api_key_encrypted;
      const row = await upsertCredential(db, userId, kind, baseUrl, sealed);
      changed(userId, stored);
      return toView(row);
    },

    async remove(userId: string, kind: CredentialKind): Promise<void> {
      const stored = await selectCredential(db, userId, kind);
      if (!stored || !(await deleteCredential(db, userId, kind))) throw new AppError('not_found', 'No credential of that kind');
      changed(userId, stored);
    },

    /** Asks the provider for one token with the values being edited, else the stored credential. */
    async test(userId: string, kind: CredentialKind, body: ProviderCredentialTest): Promise<ProviderCredentialTestResult> {
      const stored = await selectCredential(db, userId, kind);
      const baseUrl = await checkBaseUrl(kind, body.base_url, stored?.base_url ?? null);
      const apiKey = body.api_key?.trim() || (stored ? decryptSecret(secretKey, stored.api_key_encrypted) : '');
      if (!apiKey) throw invalidParam('api_key', 'is required');
      const model = body.model ?? models.defaultUpstreamModel(kind) ?? '';
      if (!model) throw invalidParam('model', 'is required: the model table has no model of this provider');
      const credential: OwnCredential = { kind, baseUrl, apiKey };
      const startedAt = performance.now();
      try {
        await models.providerForCredential(credential).complete({
          model,
          messages: [{ role: 'user', content: 'Reply with OK.' }],
          maxTokens: 1,
          signal: new AbortController().signal,
          timeoutMs: Math.min(timeoutMs, TEST_TIMEOUT_MS),
        });
        return { success: true, message: `Connected: ${model} answered`, model, latency_ms: Math.round(performance.now() - startedAt) };
      } catch (error) {
        return { success: false, message: (error as Error).message, model, latency_ms: Math.round(performance.now() - startedAt) };
      } finally {
        // An unsaved key tried once is not kept.
        if (body.api_key !== undefined || body.base_url !== undefined) models.forgetCredential(credential);
      }
    },

    /** An app owner's credentials by kind, decrypted (the gateway's and Test Prompt's own-key calls). */
    async credentialsOf(userId: string): Promise<OwnCredentials> {
      const cached = cache.get(userId);
      if (cached && invalidation?.live()) return cached;
      const token = invalidation?.track();
      const credentials: OwnCredentials = {};
      for (const row of await selectCredentials(db, userId)) credentials[row.kind] = toCredential(row);
      if (invalidation && token !== undefined && invalidation.live() && invalidation.stillCurrent(token)) {
        if (cache.size >= MAX_CACHED_USERS) cache.clear();
        cache.set(userId, credentials);
      }
      return credentials;
    },
  };
}

export type OwnKeysService = ReturnType<typeof createOwnKeysService>;
