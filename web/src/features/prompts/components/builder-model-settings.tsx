import type { Dispatch, SetStateAction } from 'react';
import { describedBy, FormField, NumberField } from '@/components/ui/form-field';
import { useFormSection } from '@/components/ui/use-form-state';
import type { PromptDraft } from '../lib/prompt-builder.utils';
import { KeySourceSelect } from './key-source-select';
import { ModelSelect } from './model-select';

interface BuilderModelSettingsProps {
  draft: PromptDraft;
  /** Takes an update of the current draft, so quick successive edits never work on a stale copy. */
  onChange: Dispatch<SetStateAction<PromptDraft>>;
}

const MAX_TOKENS = { label: 'Max Tokens', hint: '1 to 8192', min: 1, max: 8192, step: 1, inputMode: 'numeric' } as const;

type SliderName = 'temperature' | 'top_p' | 'frequency_penalty';

export function BuilderModelSettings({ draft, onChange }: BuilderModelSettingsProps) {
  const { fieldId, set } = useFormSection<PromptDraft>(onChange);

  const slider = (name: SliderName, label: string, range: { min: number; max: number; step: number }, hint?: string) => (
    <FormField id={fieldId(name)} label={label} hint={hint}>
      <div className="flex items-center gap-3">
        <input
          id={fieldId(name)}
          type="range"
          min={range.min}
          max={range.max}
          step={range.step}
          value={draft[name]}
          onChange={(event) => set(name, event.target.value)}
          className="w-full accent-indigo-600"
          {...describedBy(fieldId(name), { hint: Boolean(hint) })}
        />
        <output htmlFor={fieldId(name)} className="w-12 text-right font-mono text-sm text-gray-900">
          {draft[name]}
        </output>
      </div>
    </FormField>
  );

  return (
    <div className="grid max-w-2xl grid-cols-1 gap-6">
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
        <ModelSelect id={fieldId('model')} value={draft.model} onChange={(model) => set('model', model)} />
        <KeySourceSelect id={fieldId('key-source')} value={draft.key_source} onChange={(value) => set('key_source', value)} />
      </div>
      {slider('temperature', 'Temperature', { min: 0, max: 2, step: 0.1 }, '0 deterministic, 2 very creative')}
      <NumberField {...MAX_TOKENS} id={fieldId('max-tokens')} value={draft.max_tokens} onChange={(value) => set('max_tokens', value)} />
      {slider('top_p', 'Top P', { min: 0, max: 1, step: 0.05 })}
      {slider('frequency_penalty', 'Frequency Penalty', { min: -2, max: 2, step: 0.1 })}
    </div>
  );
}
