// OpenAI-compatible caller endpoints: POST /v1/chat/completions (model = an app's slug) and
// GET /v1/models. Shapes follow OpenAI's Chat Completions wire format, so any OpenAI client works
// unmodified; fields OpenAI does not have (inputs, conversation_id, price_cents…) are additions
// its clients pass through.
import { type Static, Type } from 'typebox';
import { DemoAnswerMetadata } from './gateway.ts';

/** A part of a message's content; only text parts are supported. */
export const ChatContentPart = Type.Object(
  {
    type: Type.String({ description: 'Only "text" is supported' }),
    text: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

export const ChatCompletionMessage = Type.Object(
  {
    role: Type.Union([Type.Literal('system'), Type.Literal('developer'), Type.Literal('user'), Type.Literal('assistant'), Type.Literal('tool')]),
    content: Type.Union([Type.String(), Type.Array(ChatContentPart, { maxItems: 100 }), Type.Null()]),
    name: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: true },
);
export type ChatCompletionMessage = Static<typeof ChatCompletionMessage>;

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
      Type.Record(Type.String(), Type.Unknown(), { description: "Tollbooth addition: the app's inputs by variable name, as in the Dify endpoints" }),
    ),
    conversation_id: Type.Optional(
      Type.String({ description: 'Tollbooth addition, Dify chat apps only: continue the conversation whose id a previous answer returned' }),
    ),
    user: Type.Optional(Type.String({ maxLength: 200, description: 'Your own end-user id, for analytics' })),
    n: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 1, description: 'Only 1 choice is produced' }), Type.Null()])),
  },
  {
    additionalProperties: true,
    description: "Other OpenAI parameters (temperature, max_tokens, top_p…) are accepted and ignored: the app's creator sets the model and its parameters.",
  },
);
export type ChatCompletionRequest = Static<typeof ChatCompletionRequest>;

export const ChatCompletionUsage = Type.Object({
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
  total_tokens: Type.Integer(),
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
      message: Type.Object({ role: Type.Literal('assistant'), content: Type.String(), refusal: Type.Null() }),
      logprobs: Type.Null(),
      finish_reason: Type.Literal('stop'),
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
      delta: Type.Object({ role: Type.Optional(Type.Literal('assistant')), content: Type.Optional(Type.String()) }),
      logprobs: Type.Null(),
      finish_reason: Type.Union([Type.Literal('stop'), Type.Null()]),
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
  upcoming_price_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  is_owner: Type.Boolean(),
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
