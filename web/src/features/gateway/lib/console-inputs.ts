// What the console sends for any app: every field of the app's inputs (read by the owner from the
// prompt or workflow configuration, by anyone else from the public catalog), with the Input Text
// going to the app's own text input rather than always to `query`.
import { type CatalogField, frontendKindOfDifyMode, type IoSchema, type WorkflowConfig } from '@tollbooth/contract';
import type { InputField } from './input-fields';
import { buildInputs, QUERY_INPUT } from './input-fields';

/** Every property of a prompt app's input schema, `query` included. */
export function schemaInputFields(schema: IoSchema | null | undefined): InputField[] {
  if (!schema) return [];
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, property]) => ({
    name,
    type: property.type,
    description: property.description ?? '',
    required: required.has(name),
    options: Array.isArray(property.enum) && property.enum.length > 0 ? property.enum.map(String) : null,
  }));
}

const CONTROL_TYPES: Record<CatalogField['control'], InputField['type']> = {
  text: 'string',
  paragraph: 'string',
  select: 'string',
  number: 'number',
  integer: 'integer',
  boolean: 'boolean',
  json: 'object',
};

/** A catalog app's public fields (GET /api/catalog/{slug}) as console fields. */
export function catalogInputFields(fields: CatalogField[] | undefined): InputField[] {
  return (fields ?? []).map((field) => ({
    name: field.name,
    type: CONTROL_TYPES[field.control],
    description: field.description || (field.label !== field.name ? field.label : ''),
    required: field.required,
    options: field.options?.length ? field.options.map(String) : null,
  }));
}

/** A workflow app is a chat app when its Dify app is one. */
export function workflowMode(config: WorkflowConfig | undefined): 'completion' | 'chat' | null {
  const mode = config?.app_info?.mode;
  if (typeof mode !== 'string') return null;
  return frontendKindOfDifyMode(mode);
}

/**
 * The field the console's main text fills: `query` when the app has one, else (completion apps) its
 * first required free-text field, else its first free-text field; null when there is none (a chat
 * app's message always travels as the body's query).
 */
export function mainTextInput(fields: InputField[], mode: 'completion' | 'chat'): string | null {
  if (fields.some((field) => field.name === QUERY_INPUT)) return QUERY_INPUT;
  if (mode === 'chat') return null;
  const texts = fields.filter((field) => field.type === 'string' && field.options === null);
  return (texts.find((field) => field.required) ?? texts[0])?.name ?? null;
}

export interface ConsoleInputs {
  /** The fields shown in the App Inputs form (all but the main text input). */
  formFields: InputField[];
  /** Where the Input Text goes; `query` when the app's fields are unknown. */
  textInput: string | null;
  /** Whether the app's fields are known (else only the text is sent, as `query`). */
  known: boolean;
}

export function consoleInputs(fields: InputField[] | null, mode: 'completion' | 'chat'): ConsoleInputs {
  if (fields === null) return { formFields: [], textInput: QUERY_INPUT, known: false };
  const textInput = mainTextInput(fields, mode);
  return { formFields: fields.filter((field) => field.name !== textInput), textInput, known: true };
}

/** The completion test's inputs: the form's fields plus the Input Text in the app's text input. */
export function completionInputs(inputs: ConsoleInputs, values: Record<string, string>, text: string): Record<string, unknown> {
  const built = buildInputs(inputs.formFields, values);
  if (inputs.textInput) built[inputs.textInput] = text;
  return built;
}
