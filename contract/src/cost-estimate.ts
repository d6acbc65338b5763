// Margin in the prompt forms (issue 22): what one call of a prompt costs upstream, next to its
// price. Model cost in micro-dollars (1 µ$ = 1/10,000 cent); model prices in dollars per million
// tokens, as providers publish them.
import { type Static, Type } from 'typebox';
import { IoSchema, ModelSettings } from './prompts.ts';

export const CostEstimateRequest = Type.Object(
  {
    model: ModelSettings.model,
    max_tokens: ModelSettings.max_tokens,
    system_prompt: Type.Optional(Type.String({ maxLength: 100_000 })),
    prompt_template: Type.Optional(Type.String({ maxLength: 100_000 })),
    input_schema: Type.Optional(IoSchema),
    app_slug: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 120,
        description: "The saved app whose recent calls give the typical cost (owner only: anyone else's slug is 404)",
      }),
    ),
  },
  { additionalProperties: false },
);

export const CostEstimate = Type.Object({
  model: Type.String(),
  prices: Type.Union(
    [
      Type.Object({
        input_per_million_usd: Type.Number({ description: 'Dollars per million input tokens' }),
        output_per_million_usd: Type.Number({ description: 'Dollars per million output tokens' }),
      }),
      Type.Null(),
    ],
    { description: 'Null when the model has no known price (it cannot be used on the platform keys)' },
  ),
  worst_case_input_tokens: Type.Integer({ minimum: 0, description: 'Most input tokens one call can send: the prompts, and every variable at its limit' }),
  worst_case_output_tokens: Type.Integer({ minimum: 0, description: 'max_tokens' }),
  worst_case_micros: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description: 'Model cost of the largest possible call at these settings, in micro-dollars; null without prices',
  }),
  typical_micros: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description: "Mean model cost of the app's recent successful calls to this model on the platform keys, in micro-dollars; null without such calls or app",
  }),
  typical_calls: Type.Integer({ minimum: 0, description: 'How many recent calls typical_micros is the mean of' }),
  unbounded_variables: Type.Array(Type.String(), {
    description: 'Template variables only the 64 KiB inputs limit bounds (strings without maxLength, arrays, objects): a maxLength lowers the worst case',
  }),
});

export type CostEstimateRequest = Static<typeof CostEstimateRequest>;
export type CostEstimate = Static<typeof CostEstimate>;
