// The spec's defaults (sections 5 and 9), once for server and web: what a new application and a
// new prompt configuration get when the request leaves a value out. The server applies them; the
// web pre-fills its forms with them.
import type { IoSchema } from './prompts.ts';

/** Price per call of a new application, in integer cents (1.00 in the account's currency). */
export const DEFAULT_PRICE_CENTS = 100;

/** Everything a new application gets unless the request says otherwise (status is always draft). */
export const DEFAULT_APP_SETTINGS = {
  visibility: 'private',
  interaction_mode: 'completion',
  status: 'draft',
  price_cents: DEFAULT_PRICE_CENTS,
} as const;

/** The model settings of a new prompt configuration. */
export const DEFAULT_MODEL_SETTINGS = {
  model: 'gpt-4-turbo',
  temperature: 0.7,
  max_tokens: 2048,
  top_p: 1,
  frequency_penalty: 0,
  presence_penalty: 0,
} as const;

/** The first version of a new prompt application's prompt: answer the query as is. */
export const DEFAULT_SYSTEM_PROMPT = 'You are a helpful assistant.';
export const DEFAULT_TEMPLATE = '{{query}}';
export const DEFAULT_INPUT_SCHEMA: IoSchema = {
  type: 'object',
  properties: { query: { type: 'string', description: 'The text to send to the model' } },
  required: ['query'],
  additionalProperties: false,
};

/** Where a workflow application's Dify API lives when its provider_config names no base_url. */
export const DEFAULT_DIFY_BASE_URL = 'https://api.dify.ai/v1';
