// Examples in the OpenAPI document, by component name: each is the schema's `examples` and the
// `example` of every request body and response that refers to it (a list of a named shape gets a
// list of its example). An error response's example carries the first code the error table
// (errors.ts) gives its status. Responses get their HTTP reason as description instead of
// swagger's "Default Response". openapi-document.test.ts checks every example against its
// contract schema with the server's own validator.
import { STATUS_CODES } from 'node:http';
import { ERROR_STATUS } from '../platform/errors.ts';
import { SCHEMAS_PATH } from './openapi-components.ts';

const UUID = '0f8c5a52-3a35-4c1e-9a53-6d3b2a1f7e40';
const APP_ID = '5b1f2d6e-8c47-4a0b-b2f9-1e7d3c9a4f21';
const TASK_ID = '9d2e4b7a-1c3f-4e8d-a6b5-0f7c2e9d1a34';
const MESSAGE_ID = 'c4a7e1d9-6b2f-4a38-9e05-3d8f1b7c2a6e';
const CREATED_AT = 1_795_000_000;

const usage = {
  prompt_tokens: 21,
  completion_tokens: 48,
  total_tokens: 69,
  input_tokens: 21,
  output_tokens: 48,
  prompt_unit_price: '0.0000000',
  prompt_price_unit: '0.0000000',
  prompt_price: '0.0000000',
  completion_unit_price: '0.0000000',
  completion_price_unit: '0.0000000',
  completion_price: '0.0000000',
  total_price: '0.0500000',
  currency: 'USD',
  latency: 1.284,
};

const apiKey = {
  id: UUID,
  name: 'Production server',
  prefix: 'tb_Xk29fQpL',
  created_at: '2026-11-02T09:14:00.000Z',
  last_used_at: '2026-11-23T15:40:12.000Z',
  revoked_at: null,
  monthly_spend_limit_cents: 5000,
  max_price_cents: 100,
  spent_this_month_cents: 1250,
  kind: 'secret',
  publishable: null,
};

const application = {
  id: APP_ID,
  name: 'Haiku Writer',
  slug: 'haiku-writer',
  description: 'Writes a haiku about any topic.',
  type: 'prompt',
  interaction_mode: 'completion',
  visibility: 'public',
  status: 'live',
  price_cents: 5,
  upcoming_price_cents: null,
  upcoming_price_at: null,
  created_at: '2026-10-30T12:00:00.000Z',
  updated_at: '2026-11-20T08:30:00.000Z',
  creator_name: 'Ada Lovelace',
  is_owner: true,
};

/** Example values by component name; each must be valid for the contract schema of that name. */
export const SCHEMA_EXAMPLES: Record<string, unknown> = {
  CallRequest: { inputs: { topic: 'owls' }, response_mode: 'blocking', user: 'customer-42' },
  InvokeRequest: { topic: 'owls' },
  CallUsage: usage,
  CallAnswer: {
    event: 'message',
    task_id: TASK_ID,
    id: MESSAGE_ID,
    message_id: MESSAGE_ID,
    conversation_id: '',
    mode: 'completion',
    answer: 'Silent wings at dusk\nthe barn owl reads the meadow\nmice forget to breathe',
    metadata: { usage },
    created_at: CREATED_AT,
  },
  DifyWorkflowRunRequest: { inputs: { topic: 'owls' }, response_mode: 'blocking', user: 'customer-42' },
  DifyWorkflowRunAnswer: {
    workflow_run_id: TASK_ID,
    task_id: TASK_ID,
    data: {
      id: TASK_ID,
      workflow_id: APP_ID,
      status: 'succeeded',
      outputs: { haiku: 'Silent wings at dusk\nthe barn owl reads the meadow\nmice forget to breathe' },
      error: null,
      elapsed_time: 2.41,
      total_tokens: 69,
      total_steps: 3,
      created_at: CREATED_AT,
      finished_at: CREATED_AT + 2,
    },
  },
  ChatCompletionRequest: { model: 'haiku-writer', messages: [{ role: 'user', content: 'owls' }], user: 'customer-42' },
  ChatCompletion: {
    id: `chatcmpl-${MESSAGE_ID}`,
    object: 'chat.completion',
    created: CREATED_AT,
    model: 'haiku-writer',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'Silent wings at dusk\nthe barn owl reads the meadow\nmice forget to breathe', refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: 21, completion_tokens: 48, total_tokens: 69 },
  },
  UploadedFile: {
    id: UUID,
    name: 'diagram.png',
    size: 48213,
    extension: 'png',
    mime_type: 'image/png',
    created_by: '2c9e7f14-5b3a-4d81-9f6e-8a0b1c2d3e4f',
    created_at: CREATED_AT,
  },
  ApiKey: apiKey,
  ApiKeyCreate: { name: 'Production server', monthly_spend_limit_cents: 5000, max_price_cents: 100 },
  ApiKeyCreated: { ...apiKey, last_used_at: null, spent_this_month_cents: 0, key: `tb_Xk29fQpL${'7'.repeat(35)}` },
  Application: application,
  ApplicationCreate: { name: 'Haiku Writer', description: 'Writes a haiku about any topic.', type: 'prompt', interaction_mode: 'completion', price_cents: 5 },
  ApplicationUpdate: { description: 'Writes a haiku about any topic, in English or French.', visibility: 'public', price_cents: 10 },
  StatusUpdate: { status: 'live' },
};

const ERROR_MESSAGES: Record<string, string> = {
  invalid_param: 'name: must NOT have fewer than 1 characters',
  unauthorized: 'Authentication required',
  insufficient_credits: 'Not enough credits for this call (5 cents); add credits and try again',
  forbidden: 'Only the owner may do this',
  not_found: 'Application not found',
  method_not_allowed: 'Method DELETE is not allowed on this path',
  conflict: 'The Idempotency-Key was used with a different body',
  payload_too_large: 'The file is larger than 15 MB',
  unsupported_media_type: 'Files of type ".exe" are not supported',
  rate_limited: 'Too many calls: 60 per minute; retry after the Retry-After seconds',
  internal_error: 'Internal server error',
  provider_error: 'The model provider failed to answer',
  service_unavailable: 'Stripe webhooks are not configured',
  provider_timeout: 'The model provider did not answer in time',
};

/** An error body as the error handler sends it for a status: the first code the table gives it. */
export function errorExample(status: number): Record<string, unknown> | undefined {
  const code = Object.entries(ERROR_STATUS).find(([, codeStatus]) => codeStatus === status)?.[0];
  if (!code) return undefined;
  return {
    code,
    message: ERROR_MESSAGES[code] ?? STATUS_CODES[status] ?? code,
    status,
    ...(code === 'invalid_param' ? { params: 'name' } : {}),
    request_id: '3f1d2c4b-5a6e-4f70-8b9c-0d1e2f3a4b5c',
  };
}

type Media = { schema?: { $ref?: string; type?: string; items?: { $ref?: string } }; example?: unknown; examples?: unknown };
type Operation = {
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { description?: string; content?: Record<string, Media> }>;
};
type ExampleDocument = { paths?: Record<string, Record<string, unknown> | undefined>; components?: { schemas?: Record<string, Record<string, unknown>> } };

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const nameOf = (ref: string | undefined) => (ref?.startsWith(SCHEMAS_PATH) ? ref.slice(SCHEMAS_PATH.length) : undefined);

/** The examples by component name: the table's, and for a list of a shape with one, a list of that one. */
function componentExamples(schemas: Record<string, Record<string, unknown>>): Map<string, unknown> {
  const examples = new Map(Object.entries(SCHEMA_EXAMPLES));
  for (const [name, schema] of Object.entries(schemas)) {
    const item = schema.type === 'array' ? nameOf((schema.items as { $ref?: string } | undefined)?.$ref) : undefined;
    if (!examples.has(name) && item && examples.has(item)) examples.set(name, [examples.get(item)]);
  }
  return examples;
}

/** The example for a media's schema: a named shape's, a list of one, or an error body for its status. */
function exampleFor(examples: Map<string, unknown>, schema: Media['schema'], status?: number): unknown {
  const name = nameOf(schema?.$ref);
  if (name === 'ErrorResponse' && status !== undefined) return errorExample(status);
  if (name) return examples.get(name);
  const itemName = schema?.type === 'array' ? nameOf(schema.items?.$ref) : undefined;
  const item = itemName ? examples.get(itemName) : undefined;
  return item === undefined ? undefined : [item];
}

function withExample(examples: Map<string, unknown>, content: Record<string, Media>, status?: number) {
  const media = Object.entries(content).map(([type, value]) => {
    const example =
      type === 'application/json' && value.example === undefined && value.examples === undefined ? exampleFor(examples, value.schema, status) : undefined;
    return [type, example === undefined ? value : { ...value, example }];
  });
  return Object.fromEntries(media) as Record<string, Media>;
}

/** For @fastify/swagger's transformObject: examples on component schemas and JSON bodies, reasons as response descriptions. */
export function addExamples<T extends object>(document: T): T {
  const doc = document as ExampleDocument;
  const schemas = doc.components?.schemas ?? {};
  const examples = componentExamples(schemas);
  for (const [name, schema] of Object.entries(schemas)) {
    const example = examples.get(name);
    if (example !== undefined && schema.examples === undefined) schemas[name] = { ...schema, examples: [example] };
  }
  for (const item of Object.values(doc.paths ?? {})) {
    if (!item) continue;
    for (const method of METHODS) {
      const operation = item[method] as Operation | undefined;
      if (!operation) continue;
      const documented: Operation = { ...operation };
      if (operation.requestBody?.content) documented.requestBody = { ...operation.requestBody, content: withExample(examples, operation.requestBody.content) };
      if (operation.responses) {
        const responses = Object.entries(operation.responses).map(([status, response]) => {
          const description = response.description === 'Default Response' ? (STATUS_CODES[Number(status)] ?? response.description) : response.description;
          return [
            status,
            response.content ? { ...response, description, content: withExample(examples, response.content, Number(status)) } : { ...response, description },
          ];
        });
        documented.responses = Object.fromEntries(responses);
      }
      item[method] = documented;
    }
  }
  return document;
}
