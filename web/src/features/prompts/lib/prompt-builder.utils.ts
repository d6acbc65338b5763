// The prompt builder's draft (spec section 3), its defaults (section 9), its save validation and
// price rule (section 5), and the request bodies it sends — kept apart from the components so they
// can be tested on their own.

import type { ApplicationCreate, ApplicationUpdate, AppStatus, KeySource, Visibility } from '@tollbooth/contract';
import { type Application, DEFAULT_APP_SETTINGS, DEFAULT_MODEL_SETTINGS, type PromptConfig, type PromptConfigUpdate, slugify } from '@tollbooth/contract';
import { centsToDollars, dollarsToCents } from '@/lib/price';
import type { ModelName } from './model-options';
import { buildSchema, emptyField, fieldsFromSchema, type SchemaField } from './schema-fields.utils';

export const PROMPT_NAME_REQUIRED = 'Prompt name is required';
export const SYSTEM_PROMPT_REQUIRED = 'System prompt is required';
export const TEMPLATE_REQUIRED = 'User prompt template is required';
export const SAVE_FAILED_MESSAGE = 'An error occurred while saving the prompt';
export const LOAD_FAILED_MESSAGE = 'Failed to load prompt data';
export const SLUG_LOCKED_HINT = 'Cannot be changed after creation';
export const UI_CHANGELOG = 'Updated via UI';

/** The spec's defaults for a new prompt application (the contract's, which the server applies too). */
export const BUILDER_DEFAULTS = {
  ...DEFAULT_MODEL_SETTINGS,
  status: DEFAULT_APP_SETTINGS.status,
  visibility: DEFAULT_APP_SETTINGS.visibility,
  price_cents: DEFAULT_APP_SETTINGS.price_cents,
} as const;

/** The builder's local draft. Number inputs are kept as text until they are sent. */
export interface PromptDraft {
  name: string;
  slug: string;
  /** True once the user typed in the slug field: it then stops following the name. */
  slugEdited: boolean;
  description: string;
  system_prompt: string;
  user_prompt_template: string;
  model: ModelName;
  /** Bring your own key: the platform's models or the creator's own provider key. */
  key_source: KeySource;
  status: AppStatus;
  visibility: Visibility;
  /** Price per call in dollars, as typed. */
  price: string;
  input_fields: SchemaField[];
  output_enabled: boolean;
  output_fields: SchemaField[];
  temperature: string;
  max_tokens: string;
  top_p: string;
  frequency_penalty: string;
  /** Not edited by the builder; kept so saving does not change it. */
  presence_penalty: number;
}

export function initialDraft(): PromptDraft {
  return {
    name: '',
    slug: '',
    slugEdited: false,
    description: '',
    system_prompt: '',
    user_prompt_template: '',
    model: BUILDER_DEFAULTS.model,
    key_source: 'platform',
    status: BUILDER_DEFAULTS.status,
    visibility: BUILDER_DEFAULTS.visibility,
    price: centsToDollars(BUILDER_DEFAULTS.price_cents),
    input_fields: [],
    output_enabled: false,
    output_fields: [emptyField()],
    temperature: String(BUILDER_DEFAULTS.temperature),
    max_tokens: String(BUILDER_DEFAULTS.max_tokens),
    top_p: String(BUILDER_DEFAULTS.top_p),
    frequency_penalty: String(BUILDER_DEFAULTS.frequency_penalty),
    presence_penalty: BUILDER_DEFAULTS.presence_penalty,
  };
}

/** The draft of a saved prompt app (edit mode). */
export function draftFromSaved(app: Application, config: PromptConfig): PromptDraft {
  const version = config.active_version;
  const outputFields = fieldsFromSchema(version.output_schema);
  return {
    name: app.name,
    slug: app.slug,
    slugEdited: true,
    description: app.description,
    system_prompt: version.system_prompt,
    user_prompt_template: version.prompt_template,
    model: config.model,
    key_source: config.key_source ?? 'platform',
    status: app.status,
    visibility: app.visibility,
    price: centsToDollars(app.price_cents),
    input_fields: fieldsFromSchema(version.input_schema),
    output_enabled: version.output_schema !== null,
    output_fields: outputFields.length > 0 ? outputFields : [emptyField()],
    temperature: String(config.temperature),
    max_tokens: String(config.max_tokens),
    top_p: String(config.top_p),
    frequency_penalty: String(config.frequency_penalty),
    presence_penalty: config.presence_penalty,
  };
}

/**
 * Applies a name change: the slug follows the name (by the contract's rule, the one the server
 * applies) until the user edits the slug. No name yet shows no slug yet.
 */
export function withName(draft: PromptDraft, name: string): PromptDraft {
  if (draft.slugEdited) return { ...draft, name };
  return { ...draft, name, slug: name.trim() === '' ? '' : slugify(name) };
}

/** The first save problem the spec names, or null. */
export function validateDraft(draft: Pick<PromptDraft, 'name' | 'system_prompt' | 'user_prompt_template'>): string | null {
  if (!draft.name.trim()) return PROMPT_NAME_REQUIRED;
  if (!draft.system_prompt.trim()) return SYSTEM_PROMPT_REQUIRED;
  if (!draft.user_prompt_template.trim()) return TEMPLATE_REQUIRED;
  return null;
}

/** A number input's value, or the fallback when it is empty or not a number. */
export function numberOr(text: string, fallback: number): number {
  if (text.trim() === '') return fallback;
  const value = Number(text);
  return Number.isFinite(value) ? value : fallback;
}

/** POST /api/app/ — the server derives the slug from the name and creates it as a draft. */
export function buildCreateAppBody(draft: PromptDraft): ApplicationCreate {
  return {
    name: draft.name.trim(),
    description: draft.description.trim(),
    type: 'prompt',
    interaction_mode: 'completion',
    visibility: draft.visibility,
    price_cents: dollarsToCents(draft.price),
  };
}

/** PATCH /api/app/{slug}/ */
export function buildUpdateAppBody(draft: PromptDraft): ApplicationUpdate {
  return {
    name: draft.name.trim(),
    description: draft.description.trim(),
    visibility: draft.visibility,
    status: draft.status,
    price_cents: dollarsToCents(draft.price),
  };
}

export function buildModelSettings(draft: PromptDraft) {
  return {
    model: draft.model,
    key_source: draft.key_source,
    temperature: numberOr(draft.temperature, BUILDER_DEFAULTS.temperature),
    max_tokens: Math.round(numberOr(draft.max_tokens, BUILDER_DEFAULTS.max_tokens)),
    top_p: numberOr(draft.top_p, BUILDER_DEFAULTS.top_p),
    frequency_penalty: numberOr(draft.frequency_penalty, BUILDER_DEFAULTS.frequency_penalty),
    presence_penalty: draft.presence_penalty,
  };
}

/** The draft's output schema: null unless enabled with at least one named field. */
export function buildOutputSchema(draft: Pick<PromptDraft, 'output_enabled' | 'output_fields'>) {
  if (!draft.output_enabled) return null;
  const schema = buildSchema(draft.output_fields);
  return Object.keys(schema.properties).length > 0 ? schema : null;
}

/** PATCH /api/app/{slug}/prompt/ */
export function buildPromptConfigBody(draft: PromptDraft): PromptConfigUpdate {
  return {
    ...buildModelSettings(draft),
    system_prompt: draft.system_prompt,
    prompt_template: draft.user_prompt_template,
    input_schema: buildSchema(draft.input_fields),
    output_schema: buildOutputSchema(draft),
    changelog: UI_CHANGELOG,
  };
}
