// Margin in the prompt forms (issue 22): model cost in micro-dollars (1 µ$ = 1/10,000 cent) as the
// server answers it, shown in dollars next to the price; the save warning's rule.
import {
  type CostEstimate,
  type CostEstimateRequest,
  chargeMicros,
  type IoSchema,
  MARKUP_ONE,
  type RateCard,
  formatMicros as sharedFormatMicros,
} from '@tollbooth/contract';
import { formatCents } from '@/lib/format';
import type { ModelName } from './model-options';
import { buildModelSettings, type PromptDraft } from './prompt-builder.utils';
import { type DetailConfigValues, detailModelSettings } from './prompt-detail.utils';
import { buildSchema } from './schema-fields.utils';

export const MICROS_PER_CENT = 10_000;
const MICROS_PER_DOLLAR = 1_000_000;

/** Micro-dollars as dollars: four decimals from a hundredth of a cent up, else three significant digits ("$0.0000420"). */
export function formatMicros(micros: number): string {
  if (micros === 0) return '$0';
  const dollars = micros / MICROS_PER_DOLLAR;
  if (micros >= 100) return `$${dollars.toFixed(4)}`;
  return `$${dollars.toPrecision(3)}`;
}

/** A price per million tokens: "$10", "$0.15", "$2.50". */
export function formatPerMillion(usd: number): string {
  if (Number.isInteger(usd)) return `$${usd}`;
  return usd >= 0.1 ? `$${usd.toFixed(2)}` : `$${Number(usd.toPrecision(3))}`;
}

/** True when the price per call is below the typical model cost of one call (each call then loses money). */
export function priceBelowTypical(priceCents: number, estimate: Pick<CostEstimate, 'typical_micros'> | undefined): boolean {
  return estimate?.typical_micros != null && Number.isFinite(priceCents) && priceCents * MICROS_PER_CENT < estimate.typical_micros;
}

/** True when one call at its worst costs more than its price. */
export function priceBelowWorstCase(priceCents: number, estimate: Pick<CostEstimate, 'worst_case_micros'> | undefined): boolean {
  return estimate?.worst_case_micros != null && Number.isFinite(priceCents) && priceCents * MICROS_PER_CENT < estimate.worst_case_micros;
}

export interface CostInputs {
  model: ModelName;
  maxTokens: number;
  systemPrompt: string;
  template: string;
  inputSchema: IoSchema;
  /** The saved app, for the typical cost of its recent calls. */
  appSlug: string | null;
}

/** The request body of the settings, or null while max_tokens is not a valid number. */
export function costEstimateBody(inputs: CostInputs): CostEstimateRequest | null {
  const maxTokens = Math.round(inputs.maxTokens);
  if (!Number.isFinite(maxTokens) || maxTokens < 1 || maxTokens > 8192) return null;
  return {
    model: inputs.model,
    max_tokens: maxTokens,
    system_prompt: inputs.systemPrompt,
    prompt_template: inputs.template,
    input_schema: inputs.inputSchema,
    ...(inputs.appSlug ? { app_slug: inputs.appSlug } : {}),
  };
}

export const belowTypicalWarning = (priceCents: number, typicalMicros: number) =>
  `This app is live and its price (${formatCents(priceCents)} per call) is below the typical model cost of one call (${formatMicros(typicalMicros)}): every call loses money. Confirm to save it anyway.`;

export const belowWorstCaseWarning = (priceCents: number, worstMicros: number) =>
  `This app goes live at ${formatCents(priceCents)} per call, below the model cost of its largest possible call (${formatMicros(worstMicros)}), and no paid call shows its typical cost yet: a large call costs you the difference. Confirm to publish at this price anyway.`;

/** The builder's settings (create and edit), as its panel and its save warning both ask for them. */
export function costInputsOfDraft(draft: PromptDraft, savedSlug: string | null): CostInputs {
  return {
    model: draft.model,
    maxTokens: buildModelSettings(draft).max_tokens,
    systemPrompt: draft.system_prompt,
    template: draft.user_prompt_template,
    inputSchema: buildSchema(draft.input_fields),
    appSlug: savedSlug,
  };
}

/** The detail page's settings (it edits the template and schemas, not the system prompt). */
export function costInputsOfDetail(values: DetailConfigValues, systemPrompt: string, slug: string): CostInputs {
  return {
    model: detailModelSettings(values).model,
    maxTokens: detailModelSettings(values).max_tokens,
    systemPrompt,
    template: values.prompt_template,
    inputSchema: values.input_schema,
    appSlug: slug,
  };
}

/** One call's margin under the app's rate card (issue 60): what it is charged, what its model costs, and what is left. */
export interface CallMargin {
  inputTokens: number;
  outputTokens: number;
  chargeMicros: number;
  modelCostMicros: number;
  /** The platform's fee of the charge; null when this page does not know the fee rate. */
  feeMicros: number | null;
  /** Charge − model cost − fee (the fee left out when unknown). */
  netMicros: number;
}

function marginOf(card: RateCard, inputTokens: number, outputTokens: number, modelCostMicros: number, feeBps: number | null): CallMargin {
  const charged = chargeMicros(card, { inputTokens, outputTokens, modelCostMicros });
  const feeMicros = feeBps === null ? null : Math.floor((charged * feeBps) / 10_000);
  return { inputTokens, outputTokens, chargeMicros: charged, modelCostMicros, feeMicros, netMicros: charged - modelCostMicros - (feeMicros ?? 0) };
}

/**
 * A typical and a worst call under the card. The worst is the estimate's largest call (its prompt
 * at most, max_tokens out). The typical is the app's recent calls' mean model cost; the estimate
 * gives no typical token counts, so its tokens are the worst call's scaled to that cost (the same
 * mix of input and output). Null parts: unknown (no prices, or no paid calls yet).
 */
export function callMargins(
  card: RateCard,
  estimate: Pick<CostEstimate, 'worst_case_input_tokens' | 'worst_case_output_tokens' | 'worst_case_micros' | 'typical_micros'>,
  feeBps: number | null = null,
): { typical: CallMargin | null; worst: CallMargin | null } {
  const worstCost = estimate.worst_case_micros;
  const worst = worstCost === null ? null : marginOf(card, estimate.worst_case_input_tokens, estimate.worst_case_output_tokens, worstCost, feeBps);
  let typical: CallMargin | null = null;
  if (estimate.typical_micros !== null && worstCost !== null && worstCost > 0) {
    const scale = Math.min(1, estimate.typical_micros / worstCost);
    typical = marginOf(
      card,
      Math.round(estimate.worst_case_input_tokens * scale),
      Math.round(estimate.worst_case_output_tokens * scale),
      estimate.typical_micros,
      feeBps,
    );
  }
  return { typical, worst };
}

const perMillionMicros = (usd: number) => Math.round(usd * 1_000_000);

/**
 * What is wrong with a per-token or cost-plus card against the model's cost, as today's per-call
 * warning does for a price per call: a token rate below the model's, or a markup below ×1.
 */
export function cardBelowCostWarnings(card: RateCard, estimate: Pick<CostEstimate, 'prices'> | undefined): string[] {
  const warnings: string[] = [];
  if (card.form === 'per_token' && estimate?.prices) {
    const input = perMillionMicros(estimate.prices.input_per_million_usd);
    const output = perMillionMicros(estimate.prices.output_per_million_usd);
    if (card.input_per_mtok_micros < input)
      warnings.push(
        `Your input price (${formatRateMicros(card.input_per_mtok_micros)} per million tokens) is below the model's (${formatRateMicros(input)}): every input token loses money.`,
      );
    if (card.output_per_mtok_micros < output)
      warnings.push(
        `Your output price (${formatRateMicros(card.output_per_mtok_micros)} per million tokens) is below the model's (${formatRateMicros(output)}): every output token loses money.`,
      );
    if (card.cached_input_per_mtok_micros !== null && card.cached_input_per_mtok_micros < input / 10)
      warnings.push(
        `Your cached input price (${formatRateMicros(card.cached_input_per_mtok_micros)} per million tokens) is below a tenth of the model's input price: check it covers the provider's cached rate.`,
      );
  }
  if (card.form === 'cost_plus' && card.markup_bps < MARKUP_ONE)
    warnings.push(`Your markup (× ${(card.markup_bps / MARKUP_ONE).toString()}) is below 1: each call sells for less than its model cost.`);
  return warnings;
}

const formatRateMicros = (micros: number) => sharedFormatMicros(micros);
