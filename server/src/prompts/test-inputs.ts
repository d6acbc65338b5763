// The values a prompt test renders with: what the tester typed, else the input schema's default,
// else an empty value. A blank test input is not a broken template, so only a template that cannot
// render at all (stray braces) is reported as a Template Error.
import { detectVariables, type IoSchema } from '@tollbooth/contract';

export interface FilledTestInputs {
  inputs: Record<string, unknown>;
  /** Variables that took the schema's default. */
  defaulted: string[];
  /** Variables rendered empty: no test value and no default. */
  emptied: string[];
}

const isBlank = (value: unknown) => value === undefined || value === null || value === '';

export function fillTestInputs(template: string, given: Record<string, unknown>, schema: IoSchema | null): FilledTestInputs {
  // Own properties only: {{constructor}} must not find Object.prototype's.
  const inputs: Record<string, unknown> = Object.create(null);
  const defaulted: string[] = [];
  const emptied: string[] = [];
  for (const [name, value] of Object.entries(given)) inputs[name] = value;
  for (const name of detectVariables(template)) {
    if (!isBlank(Object.hasOwn(given, name) ? given[name] : undefined)) continue;
    const property = schema && Object.hasOwn(schema.properties, name) ? schema.properties[name] : undefined;
    const fallback = property && Object.hasOwn(property, 'default') ? (property as { default?: unknown }).default : undefined;
    if (!isBlank(fallback)) {
      inputs[name] = fallback;
      defaulted.push(name);
    } else {
      inputs[name] = '';
      emptied.push(name);
    }
  }
  return { inputs, defaulted, emptied };
}

/** "Template rendered successfully", naming the variables that took a default or rendered empty. */
export function renderedMessage({ defaulted, emptied }: FilledTestInputs): string {
  const list = (names: string[]) => names.map((name) => `{{${name}}}`).join(', ');
  const notes = [
    ...(defaulted.length > 0 ? [`the schema default for ${list(defaulted)}`] : []),
    ...(emptied.length > 0 ? [`an empty value for ${list(emptied)}`] : []),
  ];
  return notes.length > 0 ? `Template rendered successfully, using ${notes.join(' and ')}` : 'Template rendered successfully';
}
