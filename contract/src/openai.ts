// OpenAI-compatible caller endpoints: POST /v1/chat/completions (model = an app's slug) and
// GET /v1/models. Shapes follow OpenAI's Chat Completions wire format, so any OpenAI client works
// unmodified; fields OpenAI does not have (inputs, conversation_id, price_cents…) are additions
// its clients pass through.
import { type Static, Type } from 'typebox';
import { CatalogField } from './catalog.ts';
import { NullableDateTime } from './common.ts';
import { DemoAnswerMetadata } from './gateway.ts';
import { RateCardView } from './pricing.ts';

/** A part of a message's content; only text parts are supported. */
export const ChatContentPart = Type.Object(
  {
    type: Type.String({ description: 'Only "text" is supported' }),
    text: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

/** A call of one of the caller's tools, as the model made it. */
export const ChatToolCall = Type.Object(
  {
    id: Type.String({ maxLength: 200 }),
    type: Type.Literal('function'),
    function: Type.Object({ name: Type.String({ maxLength: 200 }), arguments: Type.String({ description: 'JSON text' }) }, { additionalProperties: true }),
  },
  { additionalProperties: true },
);
export type ChatToolCall = Static<typeof ChatToolCall>;

export const ChatCompletionMessage = Type.Object(
  {
    role: Type.Union([Type.Literal('system'), Type.Literal('developer'), Type.Literal('user'), Type.Literal('assistant'), Type.Literal('tool')]),
    content: Type.Optional(Type.Union([Type.String(), Type.Array(ChatContentPart, { maxItems: 100 }), Type.Null()])),
    name: Type.Optional(Type.String({ maxLength: 200 })),
    tool_calls: Type.Optional(Type.Array(ChatToolCall, { maxItems: 128, description: 'Assistant messages: the tool calls the model made' })),
    tool_call_id: Type.Optional(Type.String({ maxLength: 200, description: 'Tool messages: the call this is the result of' })),
  },
  { additionalProperties: true },
);
export type ChatCompletionMessage = Static<typeof ChatCompletionMessage>;

/** The max_price both OpenAI doors (chat completions and responses) accept. */
const MaxPrice = Type.Number({
  minimum: 0,
  maximum: 1_000_000,
  description:
    'Tollbooth addition: the most this call may cost, in US dollars; a call that may cost more is refused (402 price_above_limit) before the model is asked',
});

export const ChatCompletionRequest = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 120, description: "The app's slug (GET /v1/models lists the apps this key can call)" }),
    messages: Type.Array(ChatCompletionMessage, {
      maxItems: 500,
      description:
        'Chat apps: the conversation (the last message must be from the user; earlier user and assistant messages are the history). ' +
        "Completion and workflow apps: the last user message fills the app's text input (unless `inputs` sets it); earlier messages are not sent.",
    }),
    stream: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    stream_options: Type.Optional(
      Type.Union([
        Type.Object(
          { include_usage: Type.Optional(Type.Boolean({ description: 'Send a last chunk with empty choices and the usage' })) },
          { additionalProperties: true },
        ),
        Type.Null(),
      ]),
    ),
    inputs: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          "Tollbooth addition: the app's inputs by variable name, as in the Dify endpoints (openai SDK: an extra field of the params, `extra_body` in Python). Wins over `metadata` and the last user message.",
      }),
    ),
    metadata: Type.Optional(
      Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
        description:
          "OpenAI's own string map, typed in every SDK: keys naming the app's inputs fill them (a number's or boolean's text becomes its type); other keys are ignored",
      }),
    ),
    conversation_id: Type.Optional(
      Type.String({ description: 'Tollbooth addition, Dify chat apps only: continue the conversation whose id a previous answer returned' }),
    ),
    user: Type.Optional(Type.String({ maxLength: 200, description: 'Your own end-user id, for analytics' })),
    n: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 1, description: 'Only 1 choice is produced' }), Type.Null()])),
    response_format: Type.Optional(
      Type.Union(
        [
          Type.Object(
            {
              type: Type.Union([Type.Literal('text'), Type.Literal('json_object'), Type.Literal('json_schema')]),
              json_schema: Type.Optional(
                Type.Object(
                  {
                    name: Type.Optional(Type.String({ maxLength: 64 })),
                    description: Type.Optional(Type.String()),
                    schema: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
                    strict: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
                  },
                  { additionalProperties: true },
                ),
              ),
            },
            { additionalProperties: true },
          ),
          Type.Null(),
        ],
        {
          description:
            "json_object or json_schema: the model answers JSON, through the provider's JSON mode or structured output (prompt apps whose creator allows it; an app's own output schema wins)",
        },
      ),
    ),
    tools: Type.Optional(
      Type.Array(
        Type.Object(
          {
            type: Type.Literal('function'),
            function: Type.Object(
              {
                name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-zA-Z0-9_-]+$' }),
                description: Type.Optional(Type.String()),
                parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
                strict: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
              },
              { additionalProperties: true },
            ),
          },
          { additionalProperties: true },
        ),
        { maxItems: 128, description: "Functions the model may call (prompt apps whose creator allows it): the answer's tool_calls" },
      ),
    ),
    tool_choice: Type.Optional(
      Type.Union([
        Type.Literal('auto'),
        Type.Literal('none'),
        Type.Literal('required'),
        Type.Object(
          { type: Type.Literal('function'), function: Type.Object({ name: Type.String() }, { additionalProperties: true }) },
          { additionalProperties: true },
        ),
        Type.Null(),
      ]),
    ),
    parallel_tool_calls: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    max_price: Type.Optional(MaxPrice),
  },
  {
    additionalProperties: true,
    description:
      "Sampling parameters (temperature, max_tokens, top_p, seed…) are accepted and ignored: the app's creator sets the model and its parameters. " +
      'Parameters whose absence would change the answer (logprobs, top_logprobs, functions, audio, prediction…) are refused with a 400 naming them.',
  },
);
export type ChatCompletionRequest = Static<typeof ChatCompletionRequest>;

export const ChatCompletionUsage = Type.Object({
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
  total_tokens: Type.Integer(),
  cost: Type.Optional(Type.Number({ description: 'Tollbooth addition (as OpenRouter): the price charged for this call, in US dollars' })),
  cost_cents: Type.Optional(Type.Integer({ description: 'Tollbooth addition: the same price in integer cents' })),
});
export type ChatCompletionUsage = Static<typeof ChatCompletionUsage>;

export const ChatCompletion = Type.Object({
  id: Type.String(),
  object: Type.Literal('chat.completion'),
  created: Type.Integer({ description: 'Unix seconds' }),
  model: Type.String({ description: "The app's slug" }),
  choices: Type.Array(
    Type.Object({
      index: Type.Integer(),
      message: Type.Object({
        role: Type.Literal('assistant'),
        content: Type.Union([Type.String(), Type.Null()], { description: 'null when the model only called tools' }),
        refusal: Type.Null(),
        tool_calls: Type.Optional(Type.Array(ChatToolCall)),
      }),
      logprobs: Type.Null(),
      finish_reason: Type.Union([Type.Literal('stop'), Type.Literal('tool_calls')]),
    }),
  ),
  usage: ChatCompletionUsage,
  conversation_id: Type.Optional(Type.String({ description: 'Tollbooth addition, Dify chat apps: send it back to continue the conversation' })),
  ...DemoAnswerMetadata,
});
export type ChatCompletion = Static<typeof ChatCompletion>;

/** One `data:` event of a streamed answer; the stream ends with `data: [DONE]`. */
export const ChatCompletionChunk = Type.Object({
  id: Type.String({ description: 'The same in every chunk of one answer' }),
  object: Type.Literal('chat.completion.chunk'),
  created: Type.Integer(),
  model: Type.String(),
  choices: Type.Array(
    Type.Object({
      index: Type.Integer(),
      delta: Type.Object({
        role: Type.Optional(Type.Literal('assistant')),
        content: Type.Optional(Type.String()),
        tool_calls: Type.Optional(
          Type.Array(
            Type.Object({
              index: Type.Integer(),
              id: Type.Optional(Type.String()),
              type: Type.Optional(Type.Literal('function')),
              function: Type.Object({ name: Type.Optional(Type.String()), arguments: Type.String() }),
            }),
          ),
        ),
      }),
      logprobs: Type.Null(),
      finish_reason: Type.Union([Type.Literal('stop'), Type.Literal('tool_calls'), Type.Null()]),
    }),
    { description: 'Empty in the usage chunk' },
  ),
  usage: Type.Optional(Type.Union([ChatCompletionUsage, Type.Null()], { description: 'With include_usage: null, except in the last chunk' })),
  conversation_id: Type.Optional(Type.String()),
  ...DemoAnswerMetadata,
});
export type ChatCompletionChunk = Static<typeof ChatCompletionChunk>;

export const OpenAIModel = Type.Object({
  id: Type.String({ description: "The app's slug: use it as `model`" }),
  object: Type.Literal('model'),
  created: Type.Integer({ description: 'Unix seconds the app was created' }),
  owned_by: Type.String({ description: "The creator's name" }),
  name: Type.String(),
  description: Type.String(),
  type: Type.Union([Type.Literal('prompt'), Type.Literal('workflow')]),
  mode: Type.Union([Type.Literal('completion'), Type.Literal('chat')], { description: 'Prompt apps: their interaction mode; workflow apps: as created' }),
  price_cents: Type.Integer({ description: 'The price of one call in force now, in integer cents (your own apps are free to you)' }),
  price: Type.String({ description: 'The same price in dollars, as a decimal string' }),
  currency: Type.Literal('USD'),
  upcoming_price_cents: Type.Union([Type.Integer(), Type.Null()], { description: 'An announced increase, from upcoming_price_at on' }),
  upcoming_price_at: NullableDateTime(),
  pricing: Type.Object(
    {
      prompt: Type.String({ description: 'US dollars per input token (per-token apps; "0" otherwise)' }),
      completion: Type.String({ description: 'US dollars per output token' }),
      request: Type.String({ description: 'US dollars per call: the price (per-call apps) or the fee added to each call' }),
      input_cache_read: Type.Optional(Type.String({ description: 'US dollars per cached input token, where the app prices them apart' })),
    },
    { description: "As OpenRouter lists a model's prices; rate_card has the whole card (minimum, cap, a cost-plus markup)" },
  ),
  rate_card: RateCardView,
  is_owner: Type.Boolean(),
  inputs: Type.Array(CatalogField, { description: "The app's input variables, sent as `inputs` (the last user message fills its text input)" }),
  supported_parameters: Type.Array(Type.String(), {
    description: 'The request parameters this app honours (as OpenRouter lists them): tools, tool_choice, response_format, structured_outputs…',
  }),
  output_schema: Type.Optional(Type.Unknown({ description: 'Prompt apps with an output schema: every answer is JSON valid against it' })),
});
export type OpenAIModel = Static<typeof OpenAIModel>;

export const OpenAIModelList = Type.Object({ object: Type.Literal('list'), data: Type.Array(OpenAIModel) });
export type OpenAIModelList = Static<typeof OpenAIModelList>;

export const OpenAIModelParams = Type.Object({ model: Type.String({ minLength: 1, maxLength: 120 }) });

/** OpenAI's error envelope. */
export const OpenAIError = Type.Object({
  error: Type.Object({
    message: Type.String(),
    type: Type.String({
      description:
        'invalid_request_error (400, 404, 409), authentication_error (401), insufficient_quota (402), permission_error (403), rate_limit_exceeded (429), api_error (5xx)',
    }),
    code: Type.Union([Type.String(), Type.Null()], { description: "Tollbooth's error code (model_not_found for an unknown model)" }),
    param: Type.Union([Type.String(), Type.Null()], { description: 'The request field the error is about' }),
  }),
});
export type OpenAIError = Static<typeof OpenAIError>;

/** POST /v1/responses: OpenAI's Responses API, mapped onto the same paid call as Chat Completions. */
export const ResponsesRequest = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 120, description: "The app's slug" }),
    input: Type.Optional(
      Type.Union([Type.String(), Type.Array(Type.Record(Type.String(), Type.Unknown()), { maxItems: 500 })], {
        description: 'Text, or input items: messages (input_text/output_text parts), function_call and function_call_output items',
      }),
    ),
    instructions: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "Sent to the model after the app's own system prompt (prompt apps)" })),
    stream: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    previous_response_id: Type.Optional(
      Type.Union([Type.String({ maxLength: 100 }), Type.Null()], { description: 'Chat apps: continue the conversation of an earlier response of yours' }),
    ),
    store: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { description: 'Chat apps: false keeps no conversation for a later previous_response_id' })),
    tools: Type.Optional(Type.Array(Type.Record(Type.String(), Type.Unknown()), { maxItems: 128, description: 'Function tools only' })),
    tool_choice: Type.Optional(Type.Unknown()),
    text: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'text.format: text, json_object or json_schema' })),
    inputs: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "Tollbooth addition: the app's inputs by variable name" })),
    metadata: Type.Optional(
      Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], { description: "Keys naming the app's inputs fill them, as in chat completions" }),
    ),
    user: Type.Optional(Type.String({ maxLength: 200 })),
    max_price: Type.Optional(MaxPrice),
  },
  {
    additionalProperties: true,
    description: "Sampling parameters (temperature, max_output_tokens, top_p…) are accepted and ignored: the app's creator sets the model and its parameters.",
  },
);
export type ResponsesRequest = Static<typeof ResponsesRequest>;

export const ResponseObject = Type.Object(
  {
    id: Type.String({ description: 'resp_…; a chat app’s response id continues its conversation as previous_response_id' }),
    object: Type.Literal('response'),
    created_at: Type.Integer(),
    status: Type.String(),
    model: Type.String(),
    output: Type.Array(Type.Record(Type.String(), Type.Unknown())),
    usage: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], { description: 'Tokens, and cost (dollars) / cost_cents: the price charged' }),
  },
  { additionalProperties: true },
);

/** GET /v1/key: the calling API key reads itself (as OpenRouter's GET /api/v1/key). */
export const OpenAIKeyInfo = Type.Object({
  data: Type.Object({
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    label: Type.String({ description: 'The key’s name (OpenRouter’s field)' }),
    prefix: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    monthly_spend_limit_cents: Type.Union([Type.Integer(), Type.Null()]),
    max_price_cents: Type.Union([Type.Integer(), Type.Null()]),
    spent_this_month_cents: Type.Integer(),
    limit: Type.Union([Type.Number(), Type.Null()], { description: 'The monthly spend limit in dollars; null: none' }),
    usage: Type.Number({ description: 'Spent this UTC month with this key, in dollars' }),
    limit_remaining: Type.Union([Type.Number(), Type.Null()], { description: 'What the key may still spend this month, in dollars; null: no limit' }),
    credits_cents: Type.Integer({ description: "The credit left on the key's account, in integer cents" }),
    credits: Type.Number({ description: 'The same credit in dollars' }),
    rate_limit: Type.Object({ requests: Type.Integer(), interval: Type.Literal('1m') }),
  }),
});
export type OpenAIKeyInfo = Static<typeof OpenAIKeyInfo>;

export const GenerationQuery = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100, description: 'The answer’s id: chatcmpl-…, resp_… or the Dify message id' }),
});

/** GET /v1/generation: what one of your calls was charged (as OpenRouter's generation lookup). */
export const GenerationInfo = Type.Object({
  data: Type.Object({
    id: Type.String({ description: 'The call (invocation) id' }),
    model: Type.String({ description: "The app's slug" }),
    created_at: Type.String({ format: 'date-time' }),
    status: Type.Union([Type.Literal('success'), Type.Literal('error')]),
    error_type: Type.Union([Type.String(), Type.Null()]),
    total_cost: Type.Number({ description: 'The price charged, in dollars (0 for a failed call: failures are free)' }),
    cost_cents: Type.Integer(),
    tokens_prompt: Type.Integer(),
    tokens_completion: Type.Integer(),
    latency: Type.Integer({ description: 'Milliseconds' }),
    api_key_id: Type.Union([Type.String(), Type.Null()]),
    demo: Type.Boolean(),
  }),
});
export type GenerationInfo = Static<typeof GenerationInfo>;
