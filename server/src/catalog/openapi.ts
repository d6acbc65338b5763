// One app's OpenAPI 3.1 document: its call endpoint with a request body generated from its inputs
// (so a code generator or an API client gets real field names, types, options and bounds), the
// blocking answer, the Server-Sent Events of a streamed one, the errors, and the OpenAI-compatible
// endpoint with the app's slug as model.

import {
  CallAnswer,
  type CatalogField,
  ErrorResponse,
  formatMinorWithCode,
  isWholeCentPerCall,
  OpenAIError,
  perCallCard,
  type RateCard,
  rateCardLines,
  StreamEvent,
} from '@tollbooth/contract';
import { RESPONSE_HEADERS } from '../http/openapi-headers.ts';
import { appUrls, requestBody, type SnippetApp } from './snippets.ts';

export type AppOpenApiDocument = { openapi: string } & Record<string, unknown>;

export interface OpenApiApp extends SnippetApp {
  name: string;
  description: string;
  priceCents: number;
  /** The rate card in force (absent: per call at priceCents). */
  pricing?: RateCard;
}

/**
 * The price in words (issue 60): a whole-cent price per call as before ("$0.05 USD"), any other
 * card line by line ("$2.00 per million input tokens; $8.00 per million output tokens").
 */
export function priceSentence(priceCents: number, pricing: RateCard | undefined): string {
  const card = pricing ?? perCallCard(priceCents);
  if (isWholeCentPerCall(card)) return `Each successful call costs ${formatMinorWithCode(priceCents, 'usd')}, charged only on success.`;
  return `Price: ${rateCardLines(card).join('; ')}. Each successful call is charged its exact amount (usage.total_price, or usage.cost on the OpenAI endpoints), only on success.`;
}

/** A TypeBox schema as plain JSON Schema (no $id, so it can sit in components). */
const plain = (schema: unknown): Record<string, unknown> => {
  const { $id: _id, ...rest } = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  return rest;
};

function fieldSchema(field: CatalogField): Record<string, unknown> {
  const schema: Record<string, unknown> = { title: field.label };
  if (field.description) schema.description = field.description;
  switch (field.control) {
    case 'number':
    case 'integer':
      schema.type = field.control;
      break;
    case 'boolean':
      schema.type = 'boolean';
      break;
    case 'json':
      break;
    case 'select':
      if (field.options?.length) schema.enum = field.options;
      if (field.options?.every((option) => typeof option === 'string')) schema.type = 'string';
      break;
    default:
      schema.type = 'string';
  }
  if (field.default !== undefined) schema.default = field.default;
  if (field.minimum !== undefined) schema.minimum = field.minimum;
  if (field.maximum !== undefined) schema.maximum = field.maximum;
  if (field.minLength !== undefined) schema.minLength = field.minLength;
  if (field.maxLength !== undefined) schema.maxLength = field.maxLength;
  return schema;
}

export function inputsSchema(fields: CatalogField[]): Record<string, unknown> {
  const required = fields.filter((field) => field.required).map((field) => field.name);
  return {
    type: 'object',
    properties: Object.fromEntries(fields.map((field) => [field.name, fieldSchema(field)])),
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  };
}

// Every answer, refusals included, carries its request id (request-id.ts).
const errorResponse = (description: string, schema = 'Error') => ({
  description,
  headers: { 'X-Request-Id': RESPONSE_HEADERS['X-Request-Id'] },
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
});

export function buildAppOpenApi(publicUrl: string, productName: string, app: OpenApiApp): AppOpenApiDocument {
  const urls = appUrls(publicUrl, app.slug, app.mode);
  const path = app.mode === 'chat' ? '/chat-messages' : '/completion-messages';
  const requestSchema: Record<string, unknown> = {
    type: 'object',
    properties: {
      inputs: { $ref: '#/components/schemas/Inputs' },
      ...(app.mode === 'chat'
        ? {
            query: { type: 'string', minLength: 1, description: 'The user message' },
            conversation_id: { type: 'string', description: 'Continue a conversation; absent or empty starts a new one' },
          }
        : {}),
      response_mode: { type: 'string', enum: ['blocking', 'streaming'], default: 'blocking' },
      user: { type: 'string', maxLength: 200, description: 'Your own end-user id, for analytics' },
      files: { type: ['array', 'null'], items: { type: 'object' }, description: 'Uploaded files or URLs (images for vision models)' },
    },
    required: app.mode === 'chat' ? ['inputs', 'query'] : ['inputs'],
  };
  const errors = {
    '400': errorResponse('invalid_param: a field is missing or invalid (the message names it)'),
    '401': errorResponse('unauthorized: no or an unknown API key'),
    '402': errorResponse('insufficient_credits, key_limit_exceeded or price_above_limit; not charged'),
    '404': errorResponse('not_found'),
    '406': errorResponse('not_acceptable: the Accept header allows neither JSON nor an event stream; not charged'),
    '429': { ...errorResponse('rate_limited; see Retry-After'), headers: REFUSED_HEADERS },
    '502': errorResponse('provider_error; not charged'),
    '504': errorResponse('provider_timeout; not charged'),
  };
  return {
    openapi: '3.1.0',
    info: {
      title: `${app.name} (${productName})`,
      version: '1',
      // The API is used under the product's terms, as in the main document (decision 0021).
      license: { name: `${productName} Terms of Service`, url: `${publicUrl.replace(/\/+$/, '')}/terms` },
      description: `${app.description ? `${app.description}\n\n` : ''}${priceSentence(app.priceCents, app.pricing)} Cap what a call may cost with the \`X-Max-Price\` header (dollars) or \`X-Max-Price-Cents\`. Authenticate with \`Authorization: Bearer <API key>\`. Dify clients use the base URL ${urls.difyBaseUrl}; OpenAI clients use ${urls.openaiBaseUrl} with model "${app.slug}".`,
    },
    servers: [{ url: urls.difyBaseUrl }],
    security: [{ bearer: [] }],
    paths: {
      [path]: {
        post: {
          operationId: app.mode === 'chat' ? 'createChatMessage' : 'createCompletionMessage',
          summary: `Call ${app.name}`,
          description:
            'response_mode blocking answers JSON; streaming answers Server-Sent Events: `message` chunks, then `message_end` with usage (the charge), or `error` (not charged). A stream is charged once any part of the answer was sent.',
          parameters: [
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: false,
              schema: { type: 'string', maxLength: 255 },
              description: 'Same key and body within 24 h: the stored answer, no second charge',
            },
            {
              name: 'X-Max-Price-Cents',
              in: 'header',
              required: false,
              schema: { type: 'integer', minimum: 0 },
              description: 'Refuse the call (402, not charged) when it may cost more than this many cents',
            },
            {
              name: 'X-Max-Price',
              in: 'header',
              required: false,
              schema: { type: 'string', pattern: '^[0-9]{1,7}(\\.[0-9]{1,6})?$' },
              description: 'Refuse the call (402, not charged) when it may cost more than this many dollars (up to 6 decimals, e.g. 0.0125)',
            },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: requestSchema, example: requestBody(app) } } },
          responses: {
            '200': {
              description: 'The answer: JSON, or with response_mode streaming Server-Sent Events, one `data: <json>` line per event',
              headers: ANSWER_HEADERS,
              content: {
                'application/json': { schema: { $ref: '#/components/schemas/Answer' } },
                'text/event-stream': { schema: { $ref: '#/components/schemas/StreamEvent' } },
              },
            },
            ...errors,
          },
        },
      },
      '/v1/chat/completions': {
        servers: [{ url: publicUrl.replace(/\/+$/, '') }],
        post: {
          operationId: 'createChatCompletion',
          summary: `Call ${app.name} as an OpenAI chat completion (model "${app.slug}")`,
          description:
            app.mode === 'chat'
              ? 'The messages are the conversation.'
              : `The last user message fills ${app.textInput ? `the "${app.textInput}" input` : 'the text input'}; send the other inputs as an \`inputs\` object beside the messages.`,
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    model: { type: 'string', const: app.slug },
                    messages: { type: 'array', items: { type: 'object', properties: { role: { type: 'string' }, content: { type: 'string' } } } },
                    stream: { type: 'boolean' },
                    inputs: { $ref: '#/components/schemas/Inputs' },
                  },
                  required: ['model', 'messages'],
                },
              },
            },
          },
          responses: {
            '200': { description: 'An OpenAI chat completion (or its chunks when stream is true)', headers: ANSWER_HEADERS },
            '400': errorResponse('invalid_request_error: a field is missing or invalid', 'OpenAIError'),
            '401': errorResponse('authentication_error: no or an unknown API key', 'OpenAIError'),
            '402': errorResponse('insufficient_quota: not enough credits, or above the key’s limits; not charged', 'OpenAIError'),
            '404': errorResponse('invalid_request_error (model_not_found)', 'OpenAIError'),
            '406': errorResponse('not_acceptable: the Accept header allows neither JSON nor an event stream; not charged', 'OpenAIError'),
            '429': { ...errorResponse('rate_limit_exceeded; see Retry-After', 'OpenAIError'), headers: REFUSED_HEADERS },
          },
        },
      },
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: `${productName} API key (tb_...)` } },
      schemas: {
        Inputs: inputsSchema(app.fields),
        Answer: plain(CallAnswer),
        StreamEvent: plain(StreamEvent),
        Error: plain(ErrorResponse),
        OpenAIError: plain(OpenAIError),
      },
    },
  };
}

const pick = (names: readonly (keyof typeof RESPONSE_HEADERS)[]) => Object.fromEntries(names.map((name) => [name, RESPONSE_HEADERS[name]]));

/** What a paid answer's headers say: its request id, the rate limit left, the price charged, a replay. */
const ANSWER_HEADERS = pick(['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'X-Price-Cents', 'Idempotent-Replayed']);
const REFUSED_HEADERS = pick(['X-Request-Id', 'Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']);
