// The prompt detail page's form (spec: Prompt detail; section 5, detail pages): its values, the
// JSON schema editors' rule, the test inputs and the two request bodies of Save Changes.
import type {
  Application,
  ApplicationUpdate,
  AppStatus,
  InteractionMode,
  IoSchema,
  KeySource,
  PromptConfig,
  PromptConfigUpdate,
  Visibility,
} from '@tollbooth/contract';
import { detectVariables } from '@tollbooth/contract';
import { centsToDollars, dollarsToCents } from '@/lib/price';
import type { ModelName } from './model-options';
import { numberOr, UI_CHANGELOG } from './prompt-builder.utils';
import { sampleValue } from './schema-fields.utils';

export const PROMPT_NOT_FOUND_MESSAGE = 'Prompt not found';
export const INVALID_JSON_HINT = 'Invalid JSON — not applied';
export const NOT_AN_OBJECT_HINT = 'Must be a JSON object — not applied';

/** The spec's prompt detail defaults (section 9): what an emptied model setting is saved and tested as. */
export const DETAIL_DEFAULTS = {
  model: 'gpt4',
  temperature: 0.7,
  max_tokens: 1000,
  top_p: 1,
  frequency_penalty: 0,
  presence_penalty: 0,
} as const satisfies Record<string, string | number>;

export interface DetailBasicValues {
  name: string;
  description: string;
  status: AppStatus;
  visibility: Visibility;
  interaction_mode: InteractionMode;
  /** The price per call as typed, in dollars. */
  price: string;
  /** Callers may send tools and response formats through the OpenAI-compatible endpoints (apps.caller_tools). */
  caller_tools: boolean;
}

export interface DetailConfigValues {
  model: ModelName;
  /** Bring your own key: the platform's models or the creator's own provider key. */
  key_source: KeySource;
  temperature: string;
  max_tokens: string;
  top_p: string;
  frequency_penalty: string;
  presence_penalty: string;
  prompt_template: string;
  input_schema: IoSchema;
  output_schema: IoSchema | null;
}

export function basicValuesOf(app: Application): DetailBasicValues {
  return {
    name: app.name,
    description: app.description,
    status: app.status,
    visibility: app.visibility,
    interaction_mode: app.interaction_mode,
    price: centsToDollars(app.price_cents),
    caller_tools: app.caller_tools ?? true,
  };
}

export function configValuesOf(config: PromptConfig): DetailConfigValues {
  return {
    model: config.model,
    key_source: config.key_source ?? 'platform',
    temperature: String(config.temperature),
    max_tokens: String(config.max_tokens),
    top_p: String(config.top_p),
    frequency_penalty: String(config.frequency_penalty),
    presence_penalty: String(config.presence_penalty),
    prompt_template: config.active_version.prompt_template,
    input_schema: config.active_version.input_schema,
    output_schema: config.active_version.output_schema,
  };
}

/** PATCH /api/app/{slug}/ — a non-numeric price becomes 0 (the detail page's minimum). */
export function buildDetailAppBody(values: DetailBasicValues): ApplicationUpdate {
  return {
    name: values.name.trim(),
    description: values.description.trim(),
    visibility: values.visibility,
    status: values.status,
    price_cents: Math.max(0, dollarsToCents(values.price)),
    interaction_mode: values.interaction_mode,
    caller_tools: values.caller_tools,
  };
}

/** The model settings as numbers; an empty or non-numeric input takes the spec's detail default. */
export function detailModelSettings(values: DetailConfigValues) {
  return {
    model: values.model || DETAIL_DEFAULTS.model,
    key_source: values.key_source,
    temperature: numberOr(values.temperature, DETAIL_DEFAULTS.temperature),
    max_tokens: Math.round(numberOr(values.max_tokens, DETAIL_DEFAULTS.max_tokens)),
    top_p: numberOr(values.top_p, DETAIL_DEFAULTS.top_p),
    frequency_penalty: numberOr(values.frequency_penalty, DETAIL_DEFAULTS.frequency_penalty),
    presence_penalty: numberOr(values.presence_penalty, DETAIL_DEFAULTS.presence_penalty),
  };
}

/** PATCH /api/app/{slug}/prompt/ */
export function buildDetailConfigBody(values: DetailConfigValues): PromptConfigUpdate {
  return {
    ...detailModelSettings(values),
    prompt_template: values.prompt_template,
    input_schema: values.input_schema,
    output_schema: values.output_schema,
    changelog: UI_CHANGELOG,
  };
}

export type SchemaTextResult = { ok: true; schema: IoSchema | null } | { ok: false; hint: string };

/**
 * A JSON schema editor's text: applied only when it parses as JSON — an object, or null where the
 * schema is optional. Anything else is ignored and the previous schema stays.
 */
export function parseSchemaText(text: string, { nullable }: { nullable: boolean }): SchemaTextResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, hint: INVALID_JSON_HINT };
  }
  if (value === null && nullable) return { ok: true, schema: null };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, hint: NOT_AN_OBJECT_HINT };
  return { ok: true, schema: value as IoSchema };
}

/**
 * The spec's sample test inputs (topic, message, query) where the schema takes them, plus a sample
 * for every variable of the template and every required input: the test checks inputs as a real
 * call does, so it gets inputs a call could send.
 */
export function detailTestInputs(template: string, schema: IoSchema): Record<string, unknown> {
  const properties = schema.properties ?? {};
  const takes = (name: string) => schema.additionalProperties !== false || Object.hasOwn(properties, name);
  const inputs: Record<string, unknown> = {};
  for (const [name, text] of Object.entries({ topic: 'sample topic', message: 'sample message', query: 'sample query' })) if (takes(name)) inputs[name] = text;
  for (const name of [...detectVariables(template), ...(schema.required ?? [])]) {
    if (!(name in inputs) || properties[name]) inputs[name] = sampleValue(name, properties[name]);
  }
  return inputs;
}
