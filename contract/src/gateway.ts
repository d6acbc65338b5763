// The paid call (Dify-compatible): request, blocking answer, usage, file references, uploaded
// files and the Server-Sent Events of a streaming answer. Server and web both use these.
import { type Static, Type } from 'typebox';

export const CallMode = Type.Union([Type.Literal('completion'), Type.Literal('chat')]);
export type CallMode = Static<typeof CallMode>;

/** A file attached to a call: an uploaded file's id (transfer_method local_file) or a URL. */
export const FileReference = Type.Object(
  {
    type: Type.Optional(Type.String({ maxLength: 50 })),
    transfer_method: Type.Optional(Type.String({ maxLength: 50 })),
    upload_file_id: Type.Optional(Type.String({ maxLength: 100 })),
    url: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: true },
);
export type FileReference = Static<typeof FileReference>;

/** The body of POST /api/app/{slug}/completion-messages and chat-messages. */
export const CallRequest = Type.Object(
  {
    inputs: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Values for the app input schema' })),
    query: Type.Optional(Type.String({ description: 'The user message (chat-messages; required there)' })),
    response_mode: Type.Optional(Type.Union([Type.Literal('blocking'), Type.Literal('streaming')], { default: 'blocking' })),
    conversation_id: Type.Optional(
      Type.Union([Type.String(), Type.Null()], { description: 'Continue a chat conversation; empty, null or absent starts a new one' }),
    ),
    user: Type.Optional(Type.String({ maxLength: 200, description: 'Your own end-user id, for analytics' })),
    // Dify's SDKs send files: null when there are none, and Dify accepts it.
    files: Type.Optional(Type.Union([Type.Array(FileReference, { maxItems: 10 }), Type.Null()])),
  },
  { additionalProperties: true },
);
export type CallRequest = Static<typeof CallRequest>;

/** The body of POST /v1/invoke/{slug}: the inputs object itself. */
export const InvokeRequest = Type.Record(Type.String(), Type.Unknown());
export type InvokeRequest = Static<typeof InvokeRequest>;

/** Optional headers of a call. */
export const CallHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  'x-max-price-cents': Type.Optional(
    Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'Refuse the call (402 price_above_limit, not charged) if it costs more than this' }),
  ),
  'x-max-price': Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,7}(\\.[0-9]{1,6})?$',
      description: 'The same ceiling in US dollars (up to 6 decimals): refuse the call (402, not charged) if it may cost more',
    }),
  ),
});
export type CallHeaders = Static<typeof CallHeaders>;

export const CallUsage = Type.Object({
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
  total_tokens: Type.Integer(),
  input_tokens: Type.Integer(),
  output_tokens: Type.Integer(),
  // Dify's price fields, decimal strings, always sent (optional for answers stored before them).
  // A call has a flat price, not per token: the per-token prices are "0" and total_price is what
  // this call cost the caller, in dollars.
  prompt_unit_price: Type.Optional(Type.String()),
  prompt_price_unit: Type.Optional(Type.String()),
  prompt_price: Type.Optional(Type.String()),
  completion_unit_price: Type.Optional(Type.String()),
  completion_price_unit: Type.Optional(Type.String()),
  completion_price: Type.Optional(Type.String()),
  total_price: Type.Optional(Type.String({ description: 'What this call cost the caller, in dollars (a decimal string, e.g. "0.0500000")' })),
  currency: Type.Optional(Type.String({ description: 'USD' })),
  owner_model_cost: Type.Optional(
    Type.String({
      description:
        'Only on the app owner\'s own call (charged no price): the model cost the owner\'s credits pay for it, in dollars to the micro-dollar (a decimal string, e.g. "0.003060"); "0.000000" on the demo model or the owner\'s own provider key',
    }),
  ),
  latency: Type.Number({ description: 'Seconds' }),
});
export type CallUsage = Static<typeof CallUsage>;

/** What the metadata of an answer carries besides usage when the built-in demo model answered. */
export const DemoAnswerMetadata = {
  demo: Type.Optional(
    Type.Literal(true, {
      description:
        "Present (true) when the built-in demo model answered because no model provider is configured for the app's model; such a call is never charged",
    }),
  ),
  demo_notice: Type.Optional(Type.String({ description: 'Says, in words, that the answer is a demo and how the app owner configures a provider' })),
};

/** The blocking answer of a call (also what an idempotent replay returns). */
export const CallAnswer = Type.Object({
  event: Type.Literal('message'),
  task_id: Type.String(),
  id: Type.String(),
  message_id: Type.String(),
  conversation_id: Type.String(),
  mode: CallMode,
  answer: Type.String(),
  metadata: Type.Object({ usage: CallUsage, ...DemoAnswerMetadata }),
  created_at: Type.Integer({ description: 'Unix seconds' }),
});
export type CallAnswer = Static<typeof CallAnswer>;

/**
 * The multipart/form-data body of an upload (POST /api/app/{slug}/file-upload/ and Dify's files/upload).
 * For documentation: @fastify/multipart reads the parts, so no body schema validates it.
 */
export const FileUpload = Type.Object({
  file: Type.String({
    format: 'binary',
    description: 'The file, at most 15 MB (413 above): png, jpg, jpeg, webp, gif, txt, md, csv, json or pdf, by its name (415 otherwise)',
  }),
  user: Type.Optional(
    Type.String({ description: "Your own end-user id, as Dify clients send it (Dify's files/upload); accepted, the file belongs to the key's account" }),
  ),
});

/** The answer of POST /api/app/{slug}/file-upload/. */
export const UploadedFile = Type.Object({
  id: Type.String(),
  name: Type.String(),
  size: Type.Integer(),
  extension: Type.String(),
  mime_type: Type.String(),
  created_by: Type.String(),
  created_at: Type.Integer({ description: 'Unix seconds' }),
});
export type UploadedFile = Static<typeof UploadedFile>;

// Streaming answers: `data: <json>\n\n` lines carrying these events, and `event: ping` every 10 s.

/** A chunk of the answer. */
export const StreamMessageEvent = Type.Object({
  event: Type.Literal('message'),
  task_id: Type.String(),
  message_id: Type.String(),
  conversation_id: Type.String(),
  answer: Type.String(),
  created_at: Type.Integer({ description: 'Unix seconds' }),
});
export type StreamMessageEvent = Static<typeof StreamMessageEvent>;

/** The end of a successful answer, with its usage; the charge happens here. */
export const StreamMessageEndEvent = Type.Object({
  event: Type.Literal('message_end'),
  task_id: Type.String(),
  id: Type.String(),
  message_id: Type.String(),
  conversation_id: Type.String(),
  metadata: Type.Object({ usage: CallUsage, retriever_resources: Type.Array(Type.Unknown()), ...DemoAnswerMetadata }),
});
export type StreamMessageEndEvent = Static<typeof StreamMessageEndEvent>;

/** A failure after the stream started; nothing is charged. */
export const StreamErrorEvent = Type.Object({
  event: Type.Literal('error'),
  task_id: Type.String(),
  message_id: Type.String(),
  status: Type.Integer(),
  code: Type.String(),
  message: Type.String(),
});
export type StreamErrorEvent = Static<typeof StreamErrorEvent>;

export const StreamEvent = Type.Union([StreamMessageEvent, StreamMessageEndEvent, StreamErrorEvent]);
export type StreamEvent = Static<typeof StreamEvent>;
