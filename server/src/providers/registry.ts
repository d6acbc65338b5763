// The model table and router: every model name the product offers (the spec's builder and detail
// page options) maps to a provider and the upstream model id it is served by. The router hands the
// gateway a provider per model name, falling back to the demo model when that provider has no key
// and DEMO_MODEL is on.
import { MODEL_NAMES } from '@tollbooth/contract';
import type { Config } from '../../config.ts';
import { AppError, invalidParam } from '../../errors.ts';
import { createAnthropicProvider } from './anthropic.ts';
import { createDemoProvider } from './demo.ts';
import { createGeminiProvider } from './gemini.ts';
import { createOpenAICompatibleProvider, OPENAI_DEFAULT_BASE_URL } from './openai-compatible.ts';
import type { FetchFunction, ModelProvider } from './types.ts';
import { isRecord, trimBaseUrl } from './upstream.ts';

export const PROVIDER_KINDS = ['openai', 'anthropic', 'gemini'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

export interface ModelTableEntry {
  provider: ProviderKind;
  upstreamModel: string;
}

export type ModelTable = Readonly<Record<string, ModelTableEntry>>;

/** The spec's model names (the prompt builder's options, then the prompt detail page's), from the shared contract. */
export const KNOWN_MODELS = MODEL_NAMES;
export type KnownModel = (typeof KNOWN_MODELS)[number];

// The names are the product's labels, so a label whose original upstream model has been retired
// (Claude 3 Opus and Sonnet, Gemini 1.0 and 1.5 Pro) is served by that model's current successor.
// mixtral goes to the OpenAI-compatible endpoint (OPENAI_BASE_URL: OpenRouter, Ollama, vLLM…);
// servers name it differently, so deployments usually override it through MODEL_TABLE.
export const DEFAULT_MODEL_TABLE: Readonly<Record<KnownModel, ModelTableEntry>> = {
  'gpt-4-turbo': { provider: 'openai', upstreamModel: 'gpt-4-turbo' },
  'gpt-4': { provider: 'openai', upstreamModel: 'gpt-4' },
  'claude-3-opus': { provider: 'anthropic', upstreamModel: 'claude-opus-4-1-20250805' },
  'claude-3-sonnet': { provider: 'anthropic', upstreamModel: 'claude-sonnet-4-5-20250929' },
  'claude-3-haiku': { provider: 'anthropic', upstreamModel: 'claude-3-haiku-20240307' },
  'gemini-pro': { provider: 'gemini', upstreamModel: 'gemini-2.5-pro' },
  gpt4: { provider: 'openai', upstreamModel: 'gpt-4' },
  claude3: { provider: 'anthropic', upstreamModel: 'claude-sonnet-4-5-20250929' },
  gemini: { provider: 'gemini', upstreamModel: 'gemini-2.5-pro' },
  mixtral: { provider: 'openai', upstreamModel: 'mixtral-8x7b' },
};

/**
 * Reads a model table override (the MODEL_TABLE value): a JSON object from model name to
 * {"provider": "openai" | "anthropic" | "gemini", "upstreamModel": "..."}; its entries replace or
 * add to `base`. Throws an Error listing every problem.
 */
export function parseModelTable(json: string, base: ModelTable = DEFAULT_MODEL_TABLE): ModelTable {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw new Error(`The model table is not valid JSON: ${(error as Error).message}`);
  }
  if (!isRecord(parsed)) throw new Error('The model table must be a JSON object from model name to {provider, upstreamModel}');
  const problems: string[] = [];
  // No prototype, so a "__proto__" entry is just a name.
  const table: Record<string, ModelTableEntry> = Object.assign(Object.create(null), base);
  for (const [name, entry] of Object.entries(parsed)) {
    const where = `model table entry "${name}"`;
    if (name.trim() === '' || name !== name.trim() || name.length > 100) {
      problems.push(`${where}: the name must be 1 to 100 characters without surrounding spaces`);
      continue;
    }
    if (!isRecord(entry)) {
      problems.push(`${where} must be an object {provider, upstreamModel}`);
      continue;
    }
    const unknownKeys = Object.keys(entry).filter((key) => key !== 'provider' && key !== 'upstreamModel');
    if (unknownKeys.length > 0) problems.push(`${where} has unknown keys: ${unknownKeys.join(', ')}`);
    if (!PROVIDER_KINDS.includes(entry.provider as ProviderKind)) problems.push(`${where}: provider must be one of ${PROVIDER_KINDS.join(', ')}`);
    if (typeof entry.upstreamModel !== 'string' || entry.upstreamModel.trim() === '') problems.push(`${where}: upstreamModel must be a non-empty string`);
    if (problems.length === 0) table[name] = { provider: entry.provider as ProviderKind, upstreamModel: (entry.upstreamModel as string).trim() };
  }
  if (problems.length > 0) throw new Error(problems.join('; '));
  return table;
}

export interface ResolvedModel {
  provider: ModelProvider;
  /** The model id to put in ModelRequest.model (for the demo provider, the model name itself). */
  upstreamModel: string;
  /** True when the demo model answers because the real provider is not configured. */
  demo: boolean;
}

export interface ModelRouter {
  /** Throws invalid_param for an unknown name, provider_error when the provider is not configured and the demo is off. */
  resolve(modelName: string): ResolvedModel;
  /** Every model name the table knows. */
  modelNames(): string[];
}

export interface ModelRouterOptions {
  fetch?: FetchFunction;
  /** Defaults to DEFAULT_MODEL_TABLE (see parseModelTable for overrides). */
  table?: ModelTable;
  /** Defaults to https://api.anthropic.com (tests point it at a fake). */
  anthropicBaseUrl?: string;
  /** Defaults to https://generativelanguage.googleapis.com (tests point it at a fake). */
  geminiBaseUrl?: string;
}

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

  return {
    resolve(modelName) {
      const entry = table.get(modelName);
      if (!entry) throw invalidParam('model', `unknown model "${modelName}"; known models are ${[...table.keys()].join(', ')}`);
      const provider = providerFor(entry.provider);
      if (provider) return { provider, upstreamModel: entry.upstreamModel, demo: false };
      if (models.demoModel) return { provider: demo, upstreamModel: modelName, demo: true };
      throw new AppError('provider_error', `Model provider for ${modelName} is not configured`);
    },
    modelNames: () => [...table.keys()],
  };
}

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
