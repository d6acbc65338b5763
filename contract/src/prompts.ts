import { type Static, Type } from 'typebox';
import { KeySource } from './provider-credentials.ts';

/** Every model name the builder and detail pages offer; the gateway maps each to a provider. */
export const MODEL_NAMES = [
  'gpt-4-turbo',
  'gpt-4',
  'claude-3-opus',
  'claude-3-sonnet',
  'claude-3-haiku',
  'gemini-pro',
  'gpt4',
  'claude3',
  'gemini',
  'mixtral',
] as const;

export const ModelName = Type.Union([
  Type.Literal('gpt-4-turbo'),
  Type.Literal('gpt-4'),
  Type.Literal('claude-3-opus'),
  Type.Literal('claude-3-sonnet'),
  Type.Literal('claude-3-haiku'),
  Type.Literal('gemini-pro'),
  Type.Literal('gpt4'),
  Type.Literal('claude3'),
  Type.Literal('gemini'),
  Type.Literal('mixtral'),
]);

const SchemaProperty = Type.Object(
  {
    type: Type.Union([
      Type.Literal('string'),
      Type.Literal('number'),
      Type.Literal('integer'),
      Type.Literal('boolean'),
      Type.Literal('array'),
      Type.Literal('object'),
    ]),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    default: Type.Optional(Type.Unknown()),
    enum: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 200 })),
    minLength: Type.Optional(Type.Integer({ minimum: 0 })),
    maxLength: Type.Optional(Type.Integer({ minimum: 0 })),
    minimum: Type.Optional(Type.Number()),
    maximum: Type.Optional(Type.Number()),
    pattern: Type.Optional(Type.String({ maxLength: 500 })),
    items: Type.Optional(
      Type.Object({
        type: Type.Union([Type.Literal('string'), Type.Literal('number'), Type.Literal('integer'), Type.Literal('boolean'), Type.Literal('object')]),
        description: Type.Optional(Type.String()),
      }),
    ),
  },
  { additionalProperties: true },
);

/** The spec's schema shape: an object with properties, a required list and additionalProperties false. */
export const IoSchema = Type.Object(
  {
    type: Type.Literal('object'),
    properties: Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), SchemaProperty),
    required: Type.Optional(Type.Array(Type.String())),
    additionalProperties: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true },
);

export const ModelSettings = {
  model: ModelName,
  temperature: Type.Number({ minimum: 0, maximum: 2 }),
  max_tokens: Type.Integer({ minimum: 1, maximum: 8192 }),
  top_p: Type.Number({ minimum: 0, maximum: 1 }),
  frequency_penalty: Type.Number({ minimum: -2, maximum: 2 }),
  presence_penalty: Type.Number({ minimum: -2, maximum: 2 }),
};

export const PromptVersion = Type.Object({
  version: Type.Integer(),
  system_prompt: Type.String(),
  prompt_template: Type.String(),
  input_schema: IoSchema,
  output_schema: Type.Union([IoSchema, Type.Null()]),
  changelog: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
});

export const PromptConfig = Type.Object({
  ...ModelSettings,
  key_source: KeySource,
  system_prompt: Type.String(),
  active_version: PromptVersion,
});

/** The model settings a save or a test run may leave out (the saved ones apply). */
const OptionalModelSettings = {
  model: Type.Optional(ModelSettings.model),
  key_source: Type.Optional(KeySource),
  temperature: Type.Optional(ModelSettings.temperature),
  max_tokens: Type.Optional(ModelSettings.max_tokens),
  top_p: Type.Optional(ModelSettings.top_p),
  frequency_penalty: Type.Optional(ModelSettings.frequency_penalty),
  presence_penalty: Type.Optional(ModelSettings.presence_penalty),
};

export const PromptConfigUpdate = Type.Object(
  {
    ...OptionalModelSettings,
    system_prompt: Type.Optional(Type.String({ maxLength: 100_000 })),
    prompt_template: Type.Optional(Type.String({ maxLength: 100_000 })),
    input_schema: Type.Optional(IoSchema),
    output_schema: Type.Optional(Type.Union([IoSchema, Type.Null()])),
    changelog: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);

export type PromptConfig = Static<typeof PromptConfig>;
export type PromptConfigUpdate = Static<typeof PromptConfigUpdate>;
export type PromptVersion = Static<typeof PromptVersion>;
export type IoSchema = Static<typeof IoSchema>;

export const PromptVersionList = Type.Object({ active_version: Type.Integer(), versions: Type.Array(PromptVersion) });

export const PromptTestRequest = Type.Object(
  {
    prompt_template: Type.String({ maxLength: 100_000 }),
    system_prompt: Type.Optional(Type.String({ maxLength: 100_000 })),
    ...OptionalModelSettings,
    input_schema: Type.Optional(IoSchema),
    output_schema: Type.Optional(Type.Union([IoSchema, Type.Null()])),
    test_inputs: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    run: Type.Optional(Type.Boolean({ description: 'Also call the model (free for the owner) and return its answer' })),
  },
  { additionalProperties: false },
);

export const PromptTestResult = Type.Object({
  success: Type.Boolean(),
  message: Type.String(),
  error: Type.Union([Type.String(), Type.Null()]),
  rendered_template: Type.String(),
  detected_variables: Type.Array(Type.String()),
  answer: Type.Optional(Type.String()),
  usage: Type.Optional(Type.Object({ input_tokens: Type.Integer(), output_tokens: Type.Integer() })),
  run_cost: Type.Optional(
    Type.Object(
      {
        model_cost_micros: Type.Integer({ description: "The run's model cost in micro-dollars (USD)" }),
        paid_by: Type.Union([Type.Literal('credits'), Type.Literal('demo'), Type.Literal('own_key')], {
          description:
            'credits: taken from your credits (posted in whole cents as costs add up); demo: the built-in demo model answered, free; own_key: your own provider key, billed by your provider',
        }),
      },
      { description: 'What a run with the model charged (issue 61: Test Prompt says what it cost)' },
    ),
  ),
});

export type PromptTestResult = Static<typeof PromptTestResult>;
