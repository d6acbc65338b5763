// An application's inputs as form fields, whatever made it: a prompt app's input schema or a Dify
// app's user_input_form both become the same list of fields. One rule for every feature that shows
// or maps an app's inputs: the generated front-end apps (Download App), the public catalog's
// fields, the OpenAI-compatible endpoint's text input. The generator only ever sees an
// AppDescription, so a new kind of app needs only a mapping here.

import type { FrontendType } from './apps.ts';
import type { CatalogField } from './catalog.ts';
import type { IoSchema } from './prompts.ts';
import { declareTemplateVariables } from './template.ts';

export type FrontendKind = FrontendType;

/** One input of an app, as the catalog publishes it (GET /api/catalog/{slug}'s fields). */
export type AppField = CatalogField;

export type FieldControl = AppField['control'];

export interface AppDescription {
  slug: string;
  name: string;
  description: string;
  priceCents: number;
  kind: FrontendKind;
  /** What made it, for the README: a prompt app or a Dify workflow app. */
  source: 'prompt' | 'workflow';
  fields: AppField[];
}

/** Strings up to this length get a one-line input; longer or unbounded ones a textarea. */
export const SINGLE_LINE_MAX_LENGTH = 200;

/** "target_language" → "Target language". */
export function labelFromName(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words ? words[0]!.toUpperCase() + words.slice(1) : name;
}

type SchemaProperty = IoSchema['properties'][string];

function controlFor(property: SchemaProperty): FieldControl {
  if (Array.isArray(property.enum) && property.enum.length > 0) return 'select';
  switch (property.type) {
    case 'number':
      return 'number';
    case 'integer':
      return 'integer';
    case 'boolean':
      return 'boolean';
    case 'array':
    case 'object':
      return 'json';
    default:
      return property.maxLength !== undefined && property.maxLength <= SINGLE_LINE_MAX_LENGTH ? 'text' : 'paragraph';
  }
}

const isOption = (value: unknown): value is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof value);

/**
 * A prompt app's input schema as form fields. Stored schemas (jsonb) do not keep their property
 * order, so the form follows the order in which the prompt template first uses each variable;
 * fields the template never names come after, in the stored order.
 */
export function fieldsFromInputSchema(schema: IoSchema, template = ''): AppField[] {
  const required = new Set(schema.required ?? []);
  const firstUse = (name: string) => {
    const match = new RegExp(`\\{\\{\\s*${name}\\s*\\}\\}`).exec(template);
    return match ? match.index : Number.POSITIVE_INFINITY;
  };
  const names = Object.keys(schema.properties);
  const ordered = names
    .map((name, index) => ({ name, index, use: firstUse(name) }))
    .sort((a, b) => (a.use === b.use ? a.index - b.index : a.use - b.use))
    .map(({ name }) => [name, schema.properties[name]!] as const);
  return ordered.map(([name, property]) => {
    const title = (property as { title?: unknown }).title;
    const field: AppField = {
      name,
      label: typeof title === 'string' && title.trim() ? title.trim() : labelFromName(name),
      description: property.description ?? '',
      control: controlFor(property),
      required: required.has(name),
    };
    if (property.default !== undefined) field.default = property.default;
    if (field.control === 'select') field.options = (property.enum ?? []).filter(isOption);
    if (property.minimum !== undefined) field.minimum = property.minimum;
    if (property.maximum !== undefined) field.maximum = property.maximum;
    if (property.minLength !== undefined) field.minLength = property.minLength;
    if (property.maxLength !== undefined) field.maxLength = property.maxLength;
    return field;
  });
}

export interface PromptAppFacts {
  slug: string;
  name: string;
  description: string;
  price_cents: number;
  interaction_mode: FrontendKind;
}

/**
 * A prompt app. In a chat app the message itself fills `query` (the gateway copies it there), so a
 * `query` input is not shown again as a conversation setting.
 */
export function describePromptApp(app: PromptAppFacts, prompt: { input_schema: IoSchema; prompt_template: string }, kind: FrontendKind): AppDescription {
  // A template variable the schema leaves out is a required text input (template.ts), as calls treat it.
  const fields = fieldsFromInputSchema(declareTemplateVariables(prompt.prompt_template, prompt.input_schema), prompt.prompt_template);
  return {
    slug: app.slug,
    name: app.name,
    description: app.description,
    priceCents: app.price_cents,
    kind,
    source: 'prompt',
    fields: kind === 'chat' ? fields.filter((field) => field.name !== 'query') : fields,
  };
}

/** Dify's app info as the workflows feature stores it (GET /v1/info plus /v1/parameters' user_input_form). */
export interface StoredDifyAppInfo {
  name?: string;
  description?: string;
  mode?: string;
  user_input_form?: unknown[];
}

/** The Dify app modes that hold a conversation (chat-messages); the others are completion or workflow apps. */
export const DIFY_CHAT_MODES: readonly string[] = ['chat', 'advanced-chat', 'agent-chat'];

export function isDifyChatMode(mode: string): boolean {
  return DIFY_CHAT_MODES.includes(mode);
}

/** Dify modes with a conversation get the chat app; completion and workflow apps the completion app. */
export function frontendKindOfDifyMode(mode: string | undefined): FrontendKind {
  return mode !== undefined && isDifyChatMode(mode) ? 'chat' : 'completion';
}

const DIFY_CONTROLS: Record<string, FieldControl> = {
  'text-input': 'text',
  paragraph: 'paragraph',
  select: 'select',
  number: 'number',
  checkbox: 'boolean',
};

/**
 * Dify's user_input_form: a list of one-key objects such as
 * `{"text-input": {"label", "variable", "required", "default", "max_length"}}` or `{"select": {..., "options": [...]}}`.
 * Unknown kinds (file uploads, external data tools) are left out: the generated app cannot fill them.
 */
export function fieldsFromDifyForm(form: unknown[] | undefined): AppField[] {
  const fields: AppField[] = [];
  for (const item of form ?? []) {
    if (!item || typeof item !== 'object') continue;
    const [kind, raw] = Object.entries(item as Record<string, unknown>)[0] ?? [];
    const control = kind ? DIFY_CONTROLS[kind] : undefined;
    if (!control || !raw || typeof raw !== 'object') continue;
    const spec = raw as Record<string, unknown>;
    const name = typeof spec.variable === 'string' ? spec.variable : '';
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) continue;
    const field: AppField = {
      name,
      label: typeof spec.label === 'string' && spec.label.trim() ? spec.label.trim() : labelFromName(name),
      description: typeof spec.description === 'string' ? spec.description : '',
      control,
      required: spec.required === true,
    };
    if (spec.default !== undefined && spec.default !== null && spec.default !== '') field.default = spec.default;
    if (typeof spec.max_length === 'number' && spec.max_length > 0) field.maxLength = spec.max_length;
    if (control === 'select') field.options = Array.isArray(spec.options) ? spec.options.filter(isOption) : [];
    fields.push(field);
  }
  return fields;
}

export interface WorkflowAppFacts {
  slug: string;
  name: string;
  description: string;
  price_cents: number;
}

/**
 * A workflow app, from the Dify app info stored with its configuration. The Tollbooth name,
 * description and price win over Dify's: they are what callers see. Without app info (the
 * workflow was never checked against Dify) the app gets a completion form with one free-text
 * `query` field, which every Dify text generator accepts.
 */
export function describeWorkflowApp(app: WorkflowAppFacts, appInfo: StoredDifyAppInfo | null): AppDescription {
  const kind = frontendKindOfDifyMode(appInfo?.mode);
  let fields = appInfo ? fieldsFromDifyForm(appInfo.user_input_form) : [];
  if (!appInfo) fields = [{ name: 'query', label: 'Query', description: 'What to send to the workflow', control: 'paragraph', required: true }];
  return {
    slug: app.slug,
    name: app.name,
    description: app.description || appInfo?.description || '',
    priceCents: app.price_cents,
    kind,
    source: 'workflow',
    fields,
  };
}
