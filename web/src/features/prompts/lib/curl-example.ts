// The curl example of the Preview & Test tab: a command that works when pasted into a POSIX shell,
// once YOUR_API_KEY is replaced with a key from the profile page. The gateway's /v1/invoke/{slug}
// takes the input fields themselves as the JSON body.
import type { IoSchema } from '@tollbooth/contract';
import { type SchemaProperty, sampleValue } from './schema-fields.utils';

export const API_KEY_PLACEHOLDER = 'YOUR_API_KEY';

/** Quotes text for a POSIX shell: single quotes, with each ' written as '\''. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * Sample input fields: the declared properties (a typed test value when one was entered, else a
 * sample of the property's type), or the template's variables when no property is declared.
 */
export function sampleInputs(schema: IoSchema, variables: readonly string[], testValues: Record<string, unknown> = {}): Record<string, unknown> {
  const names = Object.keys(schema.properties);
  const fields = names.length > 0 ? names : variables;
  const inputs: Record<string, unknown> = {};
  for (const name of fields) {
    const property: SchemaProperty | undefined = schema.properties[name];
    const tested = testValues[name];
    inputs[name] = tested !== undefined && tested !== '' ? tested : sampleValue(name, property);
  }
  return inputs;
}

export function buildCurlCommand({ origin, slug, inputs }: { origin: string; slug: string; inputs: Record<string, unknown> }): string {
  return [
    `curl -X POST ${origin}/v1/invoke/${encodeURIComponent(slug)}`,
    `  -H "Authorization: Bearer ${API_KEY_PLACEHOLDER}"`,
    '  -H "Content-Type: application/json"',
    `  -d ${shellQuote(JSON.stringify(inputs))}`,
  ].join(' \\\n');
}
