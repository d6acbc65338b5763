// Margin in the prompt forms (issue 22, item 5): next to an app's price, what one call costs
// upstream. The model's prices (dollars per million tokens); the worst case of one call at the
// form's settings (every template variable at its input limit, then max_tokens of output); and
// the typical cost, the mean model cost of the app's recent successful calls on the platform keys.
//
// The worst case is a bound, never an estimate: no tokenizer makes more tokens than UTF-8 bytes,
// so the input tokens are at most the prompt's bytes with each variable at its most bytes (a
// string's maxLength characters of up to 4 bytes each, a number's or boolean's longest JSON, an
// enum's longest value), all variables together within the gateway's 64 KiB of JSON inputs (at
// most 3 UTF-8 bytes per JSON character). A string without maxLength can fill the whole budget:
// the panel says so. A chat call's history is not counted. See docs/decisions/0033-operator-view-and-margins.md.
import type { CostEstimate, CostEstimateRequest, IoSchema } from '@tollbooth/contract';
import { TEMPLATE_VARIABLE } from '@tollbooth/contract';
import type { Queryable } from '../db/client.ts';
import { displayedPrice, inputTokensBound, type ModelPrice, modelCostMicros } from '../providers/model-prices.ts';
import { selectTypicalModelCost } from './queries.ts';

/** A model's price (providers/model-prices.ts: the dataset's, or its MODEL_TABLE override), or null when it has none. */
export type PriceOfModel = (model: string) => ModelPrice | null;

/** The gateway's limit on a call's inputs, in characters of JSON (gateway/prompt-calls.ts MAX_INPUTS_CHARACTERS). */
export const MAX_INPUTS_CHARACTERS = 64 * 1024;
/** UTF-8 bytes per JSON character at most (a UTF-16 unit of the JSON text is at most 3 bytes). */
const BYTES_PER_JSON_CHARACTER = 3;
/** UTF-8 bytes per character of a string (a code point, as maxLength counts them). */
const BYTES_PER_CHARACTER = 4;
/** The longest JSON of a number (-1.7976931348623157e+308) and of a boolean. */
const NUMBER_BYTES = 24;
const BOOLEAN_BYTES = 5;
/** How many of the app's newest calls the typical cost looks at (its successful ones on the platform keys). */
export const TYPICAL_CALLS_WINDOW = 200;

const utf8Bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** The most UTF-8 bytes one variable's value can render to, or Infinity when only the inputs limit bounds it. */
function variableBytesBound(property: IoSchema['properties'][string] | undefined): number {
  if (!property) return Number.POSITIVE_INFINITY;
  if (Array.isArray(property.enum) && property.enum.length > 0) {
    return Math.max(...property.enum.map((value) => utf8Bytes(typeof value === 'string' ? value : JSON.stringify(value ?? null))));
  }
  if (property.type === 'number' || property.type === 'integer') return NUMBER_BYTES;
  if (property.type === 'boolean') return BOOLEAN_BYTES;
  if (property.type === 'string' && property.maxLength !== undefined) return property.maxLength * BYTES_PER_CHARACTER;
  return Number.POSITIVE_INFINITY;
}

export interface WorstCaseInput {
  tokens: number;
  /** Template variables that only the inputs limit bounds (strings without maxLength, arrays, objects, undeclared). */
  unbounded: string[];
}

/** The most input tokens one completion call of this prompt can send. */
export function worstCaseInputTokens(systemPrompt: string, template: string, inputSchema: IoSchema | undefined): WorstCaseInput {
  const occurrences = new Map<string, number>();
  for (const match of template.matchAll(TEMPLATE_VARIABLE)) occurrences.set(match[1]!, (occurrences.get(match[1]!) ?? 0) + 1);
  const fixedBytes = utf8Bytes(systemPrompt) + utf8Bytes(template.replace(TEMPLATE_VARIABLE, ''));
  // The values share one budget: fill the most repeated variables first, each up to its own bound.
  let budget = MAX_INPUTS_CHARACTERS * BYTES_PER_JSON_CHARACTER;
  let variableBytes = 0;
  const unbounded: string[] = [];
  const variables = [...occurrences].map(([name, count]) => ({ name, count, bound: variableBytesBound(inputSchema?.properties[name]) }));
  for (const { name, bound } of variables) if (bound === Number.POSITIVE_INFINITY) unbounded.push(name);
  variables.sort((a, b) => b.count - a.count);
  for (const { count, bound } of variables) {
    const bytes = Math.min(bound, budget);
    budget -= bytes;
    variableBytes += bytes * count;
  }
  // The gateway's own bound (providers/model-prices.ts): bytes, plus the messages' overhead.
  return { tokens: inputTokensBound(fixedBytes + variableBytes), unbounded };
}

export interface CostEstimatorDependencies {
  db: Queryable;
  priceOfModel: PriceOfModel;
}

export function createCostEstimator({ db, priceOfModel }: CostEstimatorDependencies) {
  return {
    /** The form's figures; `appId` (the owner's saved app, already checked) adds the typical cost of its recent calls. */
    async estimate(request: CostEstimateRequest, appId: string | null): Promise<CostEstimate> {
      const price = priceOfModel(request.model);
      const prices = price ? displayedPrice(price) : null;
      const input = worstCaseInputTokens(request.system_prompt ?? '', request.prompt_template ?? '', request.input_schema);
      const typical = appId ? await selectTypicalModelCost(db, appId, request.model, TYPICAL_CALLS_WINDOW) : { calls: 0, mean_micros: 0 };
      return {
        model: request.model,
        prices: prices ? { input_per_million_usd: prices.input_per_million_usd, output_per_million_usd: prices.output_per_million_usd } : null,
        worst_case_input_tokens: input.tokens,
        worst_case_output_tokens: request.max_tokens,
        // The call's own cost rule (tiers included): at the worst case's input size, the tier that size reaches.
        worst_case_micros: price ? modelCostMicros(price, { inputTokens: input.tokens, outputTokens: request.max_tokens }) : null,
        typical_micros: typical.calls > 0 ? Math.ceil(typical.mean_micros) : null,
        typical_calls: typical.calls,
        unbounded_variables: input.unbounded,
      };
    },
  };
}

export type CostEstimator = ReturnType<typeof createCostEstimator>;
