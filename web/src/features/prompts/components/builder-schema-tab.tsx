import { AUTO_DECLARED_DESCRIPTION, AUTO_DECLARED_MAX_LENGTH, declareTemplateVariables, undeclaredVariables } from '@tollbooth/contract';
import { type Dispatch, type SetStateAction, useId } from 'react';
import { buildOutputSchema, type PromptDraft } from '../lib/prompt-builder.utils';
import { buildSchema } from '../lib/schema-fields.utils';
import { SchemaFieldBuilder } from './schema-field-builder';

interface BuilderSchemaTabProps {
  draft: PromptDraft;
  /** Takes an update of the current draft, so quick successive edits never work on a stale copy. */
  onChange: Dispatch<SetStateAction<PromptDraft>>;
}

function SchemaPreview({ schema, label }: { schema: unknown; label: string }) {
  return (
    <details className="mt-4 rounded-md bg-gray-50 p-3 ring-1 ring-gray-200">
      <summary className="cursor-pointer text-sm font-medium text-gray-700">{label}</summary>
      <pre className="mt-2 overflow-x-auto font-mono text-xs text-gray-800">{JSON.stringify(schema, null, 2)}</pre>
    </details>
  );
}

/** The template's variables no field declares: saving declares each as a required text input. */
export function AutoDeclaredNote({ template, fields }: { template: string; fields: PromptDraft['input_fields'] }) {
  const names = undeclaredVariables(template, buildSchema(fields));
  if (names.length === 0) return null;
  return (
    <p data-testid="auto-declared-inputs" className="mt-4 rounded-md bg-indigo-50 p-3 text-sm text-indigo-900 ring-1 ring-indigo-200">
      {names.map((name) => `{{${name}}}`).join(', ')} {names.length === 1 ? 'is' : 'are'} in the template but not declared above:{' '}
      {names.length === 1 ? 'it is' : 'they are'} saved as required text {names.length === 1 ? 'input' : 'inputs'} of at most{' '}
      {AUTO_DECLARED_MAX_LENGTH.toLocaleString('en-US')} characters ("{AUTO_DECLARED_DESCRIPTION}"), and every call must send{' '}
      {names.length === 1 ? 'it' : 'them'}. Add {names.length === 1 ? 'a field' : 'fields'} to choose another type or length, make{' '}
      {names.length === 1 ? 'it' : 'them'} optional or give a default.
    </p>
  );
}

export function BuilderSchemaTab({ draft, onChange }: BuilderSchemaTabProps) {
  const id = useId();
  return (
    <div className="space-y-8">
      <section aria-labelledby={`${id}-input`}>
        <h2 id={`${id}-input`} className="text-lg font-semibold text-gray-900">
          Input Schema
        </h2>
        <p className="mt-1 mb-4 text-sm text-gray-600">The fields a call sends. Each one fills the {'{{variable}}'} of the same name in the template.</p>
        <SchemaFieldBuilder
          fieldLabel="Input field"
          addLabel="Add Input Field"
          fields={draft.input_fields}
          onChange={(fields) => onChange((current) => ({ ...current, input_fields: fields }))}
        />
        <AutoDeclaredNote template={draft.user_prompt_template} fields={draft.input_fields} />
        <SchemaPreview label="Input schema JSON" schema={declareTemplateVariables(draft.user_prompt_template, buildSchema(draft.input_fields))} />
      </section>

      <section aria-labelledby={`${id}-output`}>
        <h2 id={`${id}-output`} className="text-lg font-semibold text-gray-900">
          Output Schema (optional)
        </h2>
        <div className="mt-2 mb-4 flex items-center gap-2">
          <input
            id={`${id}-output-enabled`}
            type="checkbox"
            checked={draft.output_enabled}
            onChange={(event) => {
              const enabled = event.target.checked;
              onChange((current) => ({ ...current, output_enabled: enabled }));
            }}
            className="h-4 w-4 rounded border-gray-300 text-indigo-600 focus:ring-indigo-600"
          />
          <label htmlFor={`${id}-output-enabled`} className="text-sm text-gray-700">
            Answer with JSON matching an output schema
          </label>
        </div>
        {draft.output_enabled ? (
          <>
            <SchemaFieldBuilder
              fieldLabel="Output field"
              addLabel="Add Output Field"
              fields={draft.output_fields}
              onChange={(fields) => onChange((current) => ({ ...current, output_fields: fields }))}
            />
            <SchemaPreview label="Output schema JSON" schema={buildOutputSchema(draft)} />
          </>
        ) : null}
      </section>
    </div>
  );
}
