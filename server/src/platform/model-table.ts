// The model table: every model name the product offers (the spec's builder and detail page
// options) maps to a provider and the upstream model id it is served by. Its shape is the
// contract's ModelTable; config.ts parses MODEL_TABLE with parseModelTable once, at start.
import { MODEL_NAMES, type ModelTable, type ModelTableEntry, PROVIDER_KINDS, type ProviderKind } from '@tollbooth/contract';

export type { ModelTable, ModelTableEntry } from '@tollbooth/contract';

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
/** An entry's `prices`: US dollars per million input and output tokens, and per image (optional). */
function parsePrices(value: unknown, where: string, problems: string[]): ModelTableEntry['prices'] {
  const isPrice = (price: unknown): price is number => typeof price === 'number' && Number.isFinite(price) && price >= 0 && price <= 100_000;
  if (!isRecord(value)) {
    problems.push(`${where}: prices must be an object {input, output, image?} in US dollars per million tokens (image: per image)`);
    return undefined;
  }
  const unknownKeys = Object.keys(value).filter((key) => key !== 'input' && key !== 'output' && key !== 'image');
  if (unknownKeys.length > 0) problems.push(`${where}: prices has unknown keys: ${unknownKeys.join(', ')}`);
  for (const key of ['input', 'output'] as const) {
    if (!isPrice(value[key])) problems.push(`${where}: prices.${key} must be a number of US dollars per million tokens, 0 or more`);
  }
  if (value.image !== undefined && !isPrice(value.image)) problems.push(`${where}: prices.image must be a number of US dollars per image, 0 or more`);
  return {
    input: value.input as number,
    output: value.output as number,
    ...(value.image !== undefined ? { image: value.image as number } : {}),
  };
}

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
    const unknownKeys = Object.keys(entry).filter((key) => key !== 'provider' && key !== 'upstreamModel' && key !== 'prices');
    if (unknownKeys.length > 0) problems.push(`${where} has unknown keys: ${unknownKeys.join(', ')}`);
    if (!PROVIDER_KINDS.includes(entry.provider as ProviderKind)) problems.push(`${where}: provider must be one of ${PROVIDER_KINDS.join(', ')}`);
    if (typeof entry.upstreamModel !== 'string' || entry.upstreamModel.trim() === '') problems.push(`${where}: upstreamModel must be a non-empty string`);
    const prices = entry.prices === undefined ? undefined : parsePrices(entry.prices, where, problems);
    if (problems.length === 0) {
      table[name] = { provider: entry.provider as ProviderKind, upstreamModel: (entry.upstreamModel as string).trim(), ...(prices ? { prices } : {}) };
    }
  }
  if (problems.length > 0) throw new Error(problems.join('; '));
  return table;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
