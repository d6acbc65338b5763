import type { WorkflowConfig } from '@tollbooth/contract';
import type { InputField } from './input-fields';

/** Dify's user_input_form as the console's input fields (number inputs as numbers, selects with their options). */
export function workflowInputFields(config: WorkflowConfig | undefined): InputField[] {
  const fields: InputField[] = [];
  for (const entry of config?.app_info?.user_input_form ?? []) {
    const [kind, raw] = Object.entries(entry)[0] ?? [];
    if (!kind || typeof raw !== 'object' || raw === null) continue;
    const field = raw as { variable?: unknown; label?: unknown; required?: unknown; options?: unknown };
    if (typeof field.variable !== 'string' || field.variable === 'query') continue;
    fields.push({
      name: field.variable,
      type: kind === 'number' ? 'number' : 'string',
      description: typeof field.label === 'string' ? field.label : '',
      required: field.required === true,
      options: kind === 'select' && Array.isArray(field.options) ? field.options.map(String) : null,
    });
  }
  return fields;
}
