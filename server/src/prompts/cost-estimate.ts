// Margin in the prompt forms (issue 22, item 5): next to an app's price, what one call costs
// upstream. The model's prices (dollars per million tokens); the worst case of one call at the
// form's settings (every template variable at its input limit, then max_tokens of output); and
// the typical cost, the mean model cost of the app's recent successful calls on the platform keys.
//
// The worst case is contract/src/worst-case.ts's bound, the one the gateway reserves by; the web
// reads the same code. A chat call's history is not counted. See docs/decisions/0033 and 0111.
import type { CostEstimate, CostEstimateRequest } from '@tollbooth/contract';
import { worstCaseInputTokens } from '@tollbooth/contract';
import type { Queryable } from '../db/client.ts';
import { displayedPrice, type ModelPrice, modelCostMicros } from '../providers/model-prices.ts';
import { selectTypicalModelCost } from './queries.ts';

/** A model's price (providers/model-prices.ts: the dataset's, or its MODEL_TABLE override), or null when it has none. */
export type PriceOfModel = (model: string) => ModelPrice | null;

/** The bound the gateway reserves by, shared with the web (contract/src/worst-case.ts). */
export { MAX_INPUTS_CHARACTERS, type WorstCaseInput, worstCaseInputTokens } from '@tollbooth/contract';

/** How many of the app's newest calls the typical cost looks at (its successful ones on the platform keys). */
export const TYPICAL_CALLS_WINDOW = 200;

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
