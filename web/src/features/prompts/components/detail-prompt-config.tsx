import type { PromptTestResult } from '@tollbooth/contract';
import { type Dispatch, type SetStateAction, useMemo } from 'react';
import type { TestRunProps } from '@/components/app-detail/use-test-run';
import { FormAlert } from '@/components/ui/form-alert';
import { NumberField } from '@/components/ui/form-field';
import { primaryButton } from '@/components/ui/styles';
import { useFormSection } from '@/components/ui/use-form-state';
import type { DetailConfigValues } from '../lib/prompt-detail.utils';
import type { DeclaredField } from '../lib/template-variables';
import { JsonSchemaEditor } from './json-schema-editor';
import { KeySourceSelect } from './key-source-select';
import { ModelSelect } from './model-select';
import { PromptEditor } from './prompt-editor';
import { TemplateTestResult } from './template-test-result';

interface DetailPromptConfigProps extends TestRunProps<PromptTestResult> {
  values: DetailConfigValues;
  /** Takes an update of the current values, so quick successive edits never work on a stale copy. */
  onChange: Dispatch<SetStateAction<DetailConfigValues>>;
}

type NumberName = 'temperature' | 'max_tokens' | 'top_p' | 'frequency_penalty' | 'presence_penalty';

export function DetailPromptConfig({ values, onChange, onTest, testing, result, testError }: DetailPromptConfigProps) {
  const { id, fieldId, set } = useFormSection<DetailConfigValues>(onChange);

  const fields = useMemo<DeclaredField[]>(
    () =>
      Object.entries(values.input_schema.properties ?? {}).map(([name, property]) => ({
        name,
        type: property.type,
        description: property.description ?? '',
        required: values.input_schema.required?.includes(name) ?? false,
      })),
    [values.input_schema],
  );

  const numberInput = (name: NumberName, label: string, range: { min: number; max: number; step: number }, hint?: string) => (
    <NumberField id={fieldId(name)} label={label} hint={hint} {...range} value={values[name]} onChange={(value) => set(name, value)} />
  );

  return (
    <div className="space-y-8">
      <div className="flex flex-wrap items-center gap-3">
        <button type="button" className={primaryButton} onClick={onTest} disabled={testing}>
          {testing ? 'Testing...' : 'Test Prompt'}
        </button>
        <p className="text-sm text-gray-600">Renders the template below with sample inputs.</p>
      </div>
      <div aria-live="polite" className="space-y-3">
        <FormAlert message={testError} as="p" />
        {result ? <TemplateTestResult result={result} /> : null}
      </div>

      <section aria-labelledby={`${id}-model-settings`}>
        <h2 id={`${id}-model-settings`} className="text-lg font-semibold text-gray-900">
          Model Settings
        </h2>
        <div className="mt-4 grid grid-cols-1 gap-5 sm:grid-cols-3">
          <ModelSelect id={fieldId('model')} value={values.model} onChange={(model) => set('model', model)} />
          <KeySourceSelect id={fieldId('key-source')} value={values.key_source} onChange={(value) => set('key_source', value)} />
          {numberInput('temperature', 'Temperature', { min: 0, max: 2, step: 0.1 }, '0 deterministic, 2 very creative')}
          {numberInput('max_tokens', 'Max Tokens', { min: 1, max: 8192, step: 1 })}
          {numberInput('top_p', 'Top P', { min: 0, max: 1, step: 0.05 })}
          {numberInput('frequency_penalty', 'Frequency Penalty', { min: 0, max: 1, step: 0.05 })}
          {numberInput('presence_penalty', 'Presence Penalty', { min: 0, max: 1, step: 0.05 })}
        </div>
      </section>

      <PromptEditor
        id={fieldId('template')}
        label="Prompt Template"
        height={220}
        value={values.prompt_template}
        onChange={(value) => set('prompt_template', value)}
        fields={fields}
      />

      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <JsonSchemaEditor
          id={fieldId('input-schema')}
          label="Input Schema (JSON)"
          schema={values.input_schema}
          onChange={(schema) => {
            if (schema) set('input_schema', schema);
          }}
        />
        <JsonSchemaEditor
          id={fieldId('output-schema')}
          label="Output Schema (JSON)"
          schema={values.output_schema}
          nullable
          hint="null for a free-text answer."
          onChange={(schema) => set('output_schema', schema)}
        />
      </div>
    </div>
  );
}
