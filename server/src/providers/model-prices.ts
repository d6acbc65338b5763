// What a model costs upstream. Prices come from a maintained dataset (@pydantic/genai-prices, the
// prices pydantic keeps for every major provider, shipped inside the package so nothing is fetched
// at run time), looked up by the provider and upstream model id of the model table; a MODEL_TABLE
// entry's own `prices` override the dataset. Costs are integer micro-dollars (1 µ$ = 1/10,000 cent):
// a call's cost is its reported tokens times the per-million prices, rounded up to the micro-dollar
// once per call (decision 0025), so a price like $0.15 per million tokens is exact.
import { calcPrice } from '@pydantic/genai-prices';
import type { ModelTableEntry, ProviderKind } from '@tollbooth/contract';

/** A per-million-token rate in micro-dollars, which may step up once a prompt passes a size (Gemini, Claude long context). */
export interface TokenRate {
  /** Micro-dollars per million tokens below the first tier. */
  base: number;
  /** From `start` input tokens on, every token of the call costs `rate` (the dataset's tier rule). */
  tiers: { start: number; rate: number }[];
}

export interface ModelPrice {
  input: TokenRate;
  output: TokenRate;
  /** Micro-dollars per input image, when the provider bills images apart from tokens. */
  perImage: number;
  source: 'dataset' | 'model_table';
}

/** The prices shown to creators: US dollars per million tokens (the base tier), and per image. */
export interface DisplayedModelPrice {
  input_per_million_usd: number;
  output_per_million_usd: number;
  per_image_usd: number;
}

export interface ModelUsageForCost {
  inputTokens: number;
  outputTokens: number;
  images?: number;
}

const MICROS_PER_USD = 1_000_000;
export const MICROS_PER_CENT = 10_000;

/** The dataset's provider ids for the model table's provider kinds. */
const DATASET_PROVIDER: Record<ProviderKind, string> = { openai: 'openai', anthropic: 'anthropic', gemini: 'google' };

const usdToMicros = (usd: number) => Math.round(usd * MICROS_PER_USD);

function rateFrom(value: unknown): TokenRate | null {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return { base: usdToMicros(value), tiers: [] };
  if (value && typeof value === 'object' && 'base' in value && typeof (value as { base: unknown }).base === 'number') {
    const tiered = value as { base: number; tiers?: { start: number; price: number }[] };
    return {
      base: usdToMicros(tiered.base),
      tiers: (tiered.tiers ?? []).map((tier) => ({ start: tier.start, rate: usdToMicros(tier.price) })).sort((a, b) => a.start - b.start),
    };
  }
  return null;
}

/** The dataset's prices for an upstream model of a provider, or null when the dataset does not know it. */
export function datasetPrice(provider: ProviderKind, upstreamModel: string): ModelPrice | null {
  const found =
    calcPrice({ input_tokens: 0, output_tokens: 0 }, upstreamModel, { providerId: DATASET_PROVIDER[provider] }) ??
    calcPrice({ input_tokens: 0, output_tokens: 0 }, upstreamModel);
  if (!found) return null;
  const input = rateFrom(found.model_price.input_mtok);
  const output = rateFrom(found.model_price.output_mtok);
  if (!input || !output) return null;
  return { input, output, perImage: 0, source: 'dataset' };
}

/** A model table entry's price: its own override, else the dataset's; null when neither knows it. */
export function priceOfEntry(entry: ModelTableEntry): ModelPrice | null {
  if (entry.prices) {
    return {
      input: { base: usdToMicros(entry.prices.input), tiers: [] },
      output: { base: usdToMicros(entry.prices.output), tiers: [] },
      perImage: usdToMicros(entry.prices.image ?? 0),
      source: 'model_table',
    };
  }
  return datasetPrice(entry.provider, entry.upstreamModel);
}

const rateFor = (rate: TokenRate, inputTokens: number) => {
  let value = rate.base;
  for (const tier of rate.tiers) if (inputTokens > tier.start) value = tier.rate;
  return value;
};

/** A call's model cost in micro-dollars: tokens × prices, rounded up once. */
export function modelCostMicros(price: ModelPrice, usage: ModelUsageForCost): number {
  const input = Math.max(0, Math.floor(usage.inputTokens));
  const output = Math.max(0, Math.floor(usage.outputTokens));
  const tokenMicros = Math.ceil((input * rateFor(price.input, input) + output * rateFor(price.output, input)) / 1_000_000);
  return tokenMicros + Math.max(0, usage.images ?? 0) * price.perImage;
}

/** Micro-dollars as whole cents, rounded up (what a reservation must hold to cover them). */
export const centsCovering = (micros: number) => Math.ceil(micros / MICROS_PER_CENT);

export function displayedPrice(price: ModelPrice): DisplayedModelPrice {
  return {
    input_per_million_usd: price.input.base / MICROS_PER_USD,
    output_per_million_usd: price.output.base / MICROS_PER_USD,
    per_image_usd: price.perImage / MICROS_PER_USD,
  };
}

/** The tokens-from-bytes bound and the image bound, shared with the web's worst case (contract/src/worst-case.ts). */
export { IMAGE_TOKENS_BOUND, inputTokensBound } from '@tollbooth/contract';
