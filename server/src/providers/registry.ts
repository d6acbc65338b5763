// The model router: hands the gateway a provider per model name of the model table
// (model-table.ts), falling back to the demo model when that provider has no key and DEMO_MODEL is on.
import { createHash } from 'node:crypto';
import type { ProviderKind } from '@tollbooth/contract';
import type { Config } from '../platform/config.ts';
import { AppError, invalidParam } from '../platform/errors.ts';
import { DEFAULT_MODEL_TABLE, type ModelTable } from '../platform/model-table.ts';
import { createAnthropicProvider } from './anthropic.ts';
import { createDemoProvider } from './demo.ts';
import { createGeminiProvider } from './gemini.ts';
import { guardedFetch } from './guarded-fetch.ts';
import { type ModelPrice, priceOfEntry } from './model-prices.ts';
import { createOpenAICompatibleProvider, OPENAI_DEFAULT_BASE_URL } from './openai-compatible.ts';
import type { FetchFunction, ModelProvider } from './types.ts';
import { trimBaseUrl } from './upstream.ts';

export { type ModelTableEntry, PROVIDER_KINDS, type ProviderKind } from '@tollbooth/contract';
export { DEFAULT_MODEL_TABLE, KNOWN_MODELS, type KnownModel, type ModelTable, parseModelTable } from '../platform/model-table.ts';

export interface ResolvedModel {
  provider: ModelProvider;
  /** The model id to put in ModelRequest.model (for the demo provider, the model name itself). */
  upstreamModel: string;
  /** True when the demo model answers because the real provider is not configured. */
  demo: boolean;
  /** The provider kind the model table names for the model (set by the router; workflow calls have none). */
  providerKind?: ProviderKind;
  /** What the model costs on the operator's key (null for the demo model, a creator's own key, and workflow calls). */
  price?: ModelPrice | null;
  /** True when the model is called on the app owner's own provider key (bring your own key): no model cost is posted. */
  ownKey?: boolean;
}

/** A creator's own key for one provider kind (profile/own-keys-service.ts), decrypted. */
export interface OwnCredential {
  kind: ProviderKind;
  /** The OpenAI-compatible server's base URL (kind openai); null for anthropic and gemini. */
  baseUrl: string | null;
  apiKey: string;
}

/** A creator's own keys by kind (at most one each). */
export type OwnCredentials = Partial<Record<ProviderKind, OwnCredential>>;

export interface ModelRouter {
  /** Throws invalid_param for an unknown name, provider_error when the provider is not configured and the demo is off. */
  resolve(modelName: string): ResolvedModel;
  /**
   * The model on the given own keys (bring your own key): never the platform's keys, never the
   * demo model. Throws invalid_param for an unknown name, app_unavailable (error type own_key_missing)
   * when there is no credential for the model's provider.
   */
  resolveWith(modelName: string, credentials: OwnCredentials): ResolvedModel;
  /** The provider for one own key (cached per credential; Test Connection, resolveWith). */
  providerForCredential(credential: OwnCredential): ModelProvider;
  /** Drops the cached provider of a credential that changed or was removed. */
  forgetCredential(credential: OwnCredential): void;
  /** The upstream model id the table maps the first model of a kind to (Test Connection's default). */
  defaultUpstreamModel(kind: ProviderKind): string | null;
  /** Every model name the table knows. */
  modelNames(): string[];
  /** The models the demo model answers (their provider is not configured and DEMO_MODEL is on). */
  demoModels(): { name: string; provider: ProviderKind }[];
  /** A model's price on the operator's key, or null when no price is known (or the name is unknown). */
  priceOf(modelName: string): ModelPrice | null;
  /** Models served on the operator's key whose price is unknown: they cannot be used until MODEL_TABLE gives one. */
  unpricedModels(): string[];
  /**
   * The models an app can choose on this server, in table order: served by a configured provider
   * with a known price, or answered by the demo model (demo: true). A name serving the same upstream
   * model of the same provider as an earlier name (gpt4 for gpt-4) is left out.
   */
  offeredModels(): { name: string; provider: ProviderKind; demo: boolean }[];
}

export interface ModelRouterOptions {
  fetch?: FetchFunction;
  /** Defaults to DEFAULT_MODEL_TABLE (see parseModelTable for overrides). */
  table?: ModelTable;
  /** Defaults to https://api.anthropic.com (tests point it at a fake). */
  anthropicBaseUrl?: string;
  /** Defaults to https://generativelanguage.googleapis.com (tests point it at a fake). */
  geminiBaseUrl?: string;
  /** ALLOW_PRIVATE_PROVIDER_URLS: creators' own base URLs may reach private and loopback addresses (default off). */
  allowPrivateUrls?: boolean;
}

const MAX_CREDENTIAL_PROVIDERS = 1_000;
const credentialKey = (credential: OwnCredential) =>
  createHash('sha256')
    .update(`${credential.kind}\n${credential.baseUrl ?? ''}\n${credential.apiKey}`)
    .digest('base64url');

export function createModelRouter(models: Config['models'], options: ModelRouterOptions = {}): ModelRouter {
  const table = new Map(Object.entries(options.table ?? DEFAULT_MODEL_TABLE));
  const demo = createDemoProvider();
  // One provider per kind, created on first use; each is stateless apart from its settings, and
  // the global fetch pools keep-alive connections per origin.
  const providers = new Map<ProviderKind, ModelProvider | null>();
  const providerFor = (kind: ProviderKind): ModelProvider | null => {
    if (!providers.has(kind)) providers.set(kind, createProvider(kind, models, options));
    return providers.get(kind) ?? null;
  };

  const prices = new Map([...table].map(([name, entry]) => [name, priceOfEntry(entry)]));
  // Providers on creators' own keys, one per credential (its content is the key, so a changed
  // credential never finds the old provider); forgetCredential drops one, and the map is bounded.
  const ownProviders = new Map<string, ModelProvider>();
  const providerForCredential = (credential: OwnCredential): ModelProvider => {
    const key = credentialKey(credential);
    let provider = ownProviders.get(key);
    if (!provider) {
      provider = createOwnProvider(credential, options);
      if (ownProviders.size >= MAX_CREDENTIAL_PROVIDERS) ownProviders.clear();
      ownProviders.set(key, provider);
    }
    return provider;
  };

  return {
    resolveWith(modelName, credentials) {
      const entry = table.get(modelName);
      if (!entry) throw invalidParam('model', `unknown model "${modelName}"; known models are ${[...table.keys()].join(', ')}`);
      const credential = credentials[entry.provider];
      if (!credential) {
        throw new AppError(
          'app_unavailable',
          `This app runs on its creator's own ${PROVIDER_LABELS[entry.provider]} key, which is not set up`,
          undefined,
          undefined,
          'own_key_missing',
        );
      }
      return { provider: providerForCredential(credential), upstreamModel: entry.upstreamModel, demo: false, providerKind: entry.provider, ownKey: true };
    },
    providerForCredential,
    forgetCredential: (credential) => void ownProviders.delete(credentialKey(credential)),
    defaultUpstreamModel: (kind) => [...table.values()].find((entry) => entry.provider === kind)?.upstreamModel ?? null,
    resolve(modelName) {
      const entry = table.get(modelName);
      if (!entry) throw invalidParam('model', `unknown model "${modelName}"; known models are ${[...table.keys()].join(', ')}`);
      const provider = providerFor(entry.provider);
      if (provider) {
        const price = prices.get(modelName) ?? null;
        if (!price) throw new AppError('service_unavailable', unpricedMessage(modelName), undefined, undefined, 'model_unpriced');
        return { provider, upstreamModel: entry.upstreamModel, demo: false, providerKind: entry.provider, price };
      }
      if (models.demoModel) return { provider: demo, upstreamModel: modelName, demo: true, providerKind: entry.provider };
      throw new AppError('provider_error', `Model provider for ${modelName} is not configured`);
    },
    modelNames: () => [...table.keys()],
    demoModels: () =>
      models.demoModel
        ? [...table].filter(([, entry]) => providerFor(entry.provider) === null).map(([name, entry]) => ({ name, provider: entry.provider }))
        : [],
    priceOf: (modelName) => prices.get(modelName) ?? null,
    unpricedModels: () => [...table.keys()].filter((name) => providerFor(table.get(name)!.provider) !== null && !prices.get(name)),
    offeredModels: () => {
      const seen = new Set<string>();
      const offered: { name: string; provider: ProviderKind; demo: boolean }[] = [];
      for (const [name, entry] of table) {
        const same = `${entry.provider}\u0000${entry.upstreamModel}`;
        if (seen.has(same)) continue;
        seen.add(same);
        if (providerFor(entry.provider) !== null) {
          if (prices.get(name)) offered.push({ name, provider: entry.provider, demo: false });
        } else if (models.demoModel) offered.push({ name, provider: entry.provider, demo: true });
      }
      return offered;
    },
  };
}

/** Why a model without a known price is refused on the operator's key. */
export const unpricedMessage = (modelName: string) =>
  `Model ${modelName} has no known price, so it cannot be used on the platform's provider key: choose another model, or the operator sets its prices in MODEL_TABLE`;

/** The provider for a kind, or null when its key is not configured. */
function createProvider(kind: ProviderKind, models: Config['models'], options: ModelRouterOptions): ModelProvider | null {
  switch (kind) {
    case 'openai': {
      // A base URL of its own (Ollama, vLLM on the local network) needs no key to count as configured.
      const customBaseUrl = trimBaseUrl(models.openaiBaseUrl) !== OPENAI_DEFAULT_BASE_URL;
      if (!models.openaiApiKey && !customBaseUrl) return null;
      return createOpenAICompatibleProvider({ baseUrl: models.openaiBaseUrl, apiKey: models.openaiApiKey, fetch: options.fetch });
    }
    case 'anthropic':
      return models.anthropicApiKey
        ? createAnthropicProvider({ apiKey: models.anthropicApiKey, baseUrl: options.anthropicBaseUrl, fetch: options.fetch })
        : null;
    case 'gemini':
      return models.geminiApiKey ? createGeminiProvider({ apiKey: models.geminiApiKey, baseUrl: options.geminiBaseUrl, fetch: options.fetch }) : null;
  }
}

export const PROVIDER_LABELS: Record<ProviderKind, string> = { openai: 'OpenAI-compatible', anthropic: 'Anthropic', gemini: 'Gemini' };

/** A provider on a creator's own key: their base URL (guarded like workflow URLs) or the provider's own API. */
function createOwnProvider(credential: OwnCredential, options: ModelRouterOptions): ModelProvider {
  switch (credential.kind) {
    case 'openai':
      return createOpenAICompatibleProvider({
        baseUrl: credential.baseUrl ?? OPENAI_DEFAULT_BASE_URL,
        apiKey: credential.apiKey,
        fetch: options.fetch ?? (options.allowPrivateUrls ? undefined : guardedFetch()),
        label: 'Your OpenAI-compatible provider',
      });
    case 'anthropic':
      return createAnthropicProvider({ apiKey: credential.apiKey, baseUrl: options.anthropicBaseUrl, fetch: options.fetch });
    case 'gemini':
      return createGeminiProvider({ apiKey: credential.apiKey, baseUrl: options.geminiBaseUrl, fetch: options.fetch });
  }
}
