// The console's extra input fields: every property of the app's input schema besides `query`
// (which the Input Text or Chat Query fills), and how their text values become JSON inputs.
import type { IoSchema } from '@tollbooth/contract';

type PropertyType = IoSchema['properties'][string]['type'];

export interface InputField {
  name: string;
  type: PropertyType;
  description: string;
  required: boolean;
  /** Allowed values, as offered in a select. */
  options: string[] | null;
}

/** The name every new prompt app's input schema starts with; the console's main text goes there. */
export const QUERY_INPUT = 'query';

export function extraInputFields(schema: IoSchema | null | undefined): InputField[] {
  if (!schema) return [];
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties)
    .filter(([name]) => name !== QUERY_INPUT)
    .map(([name, property]) => ({
      name,
      type: property.type,
      description: property.description ?? '',
      required: required.has(name),
      options: Array.isArray(property.enum) && property.enum.length > 0 ? property.enum.map(String) : null,
    }));
}

/** One field's text as the JSON value the schema expects; undefined leaves the input out. */
export function parseInputValue(field: InputField, text: string): unknown {
  if (text.trim() === '') return undefined;
  switch (field.type) {
    case 'number':
    case 'integer': {
      const value = Number(text);
      return Number.isNaN(value) ? text : value;
    }
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : text;
    case 'array':
    case 'object':
      try {
        return JSON.parse(text);
      } catch {
        // The server answers with the schema error, which says more than we could here.
        return text;
      }
    default:
      return text;
  }
}

/** The inputs object of a call: the extra fields that have a value, plus `query` when given. */
export function buildInputs(fields: InputField[], values: Record<string, string>, query?: string): Record<string, unknown> {
  const inputs: Record<string, unknown> = {};
  for (const field of fields) {
    const value = parseInputValue(field, values[field.name] ?? '');
    if (value !== undefined) inputs[field.name] = value;
  }
  if (query !== undefined) inputs[QUERY_INPUT] = query;
  return inputs;
}
