import type { AppStatus, InteractionMode } from '@tollbooth/contract';
import { type Dispatch, type SetStateAction, useId } from 'react';
import { DescriptionField, NameField, VisibilityField } from '@/components/app-basics/basic-fields';
import { PriceField } from '@/components/app-basics/price-field';
import { describedBy, FormField } from '@/components/ui/form-field';
import { inputField } from '@/components/ui/styles';
import type { DetailBasicValues } from '../lib/prompt-detail.utils';

interface DetailBasicSettingsProps {
  values: DetailBasicValues;
  /** Takes an update of the current values, so quick successive edits never work on a stale copy. */
  onChange: Dispatch<SetStateAction<DetailBasicValues>>;
}

export function DetailBasicSettings({ values, onChange }: DetailBasicSettingsProps) {
  const id = useId();
  const fieldId = (name: string) => `${id}-${name}`;
  const set = <K extends keyof DetailBasicValues>(name: K, value: DetailBasicValues[K]) => onChange((current) => ({ ...current, [name]: value }));

  return (
    <div className="grid max-w-3xl grid-cols-1 gap-5 sm:grid-cols-2">
      <NameField id={fieldId('name')} label="Application Name" value={values.name} onChange={(value) => set('name', value)} />
      <FormField id={fieldId('status')} label="Status">
        <select id={fieldId('status')} value={values.status} onChange={(event) => set('status', event.target.value as AppStatus)} className={inputField}>
          <option value="draft">Draft</option>
          <option value="live">Live</option>
          <option value="archived">Archived</option>
        </select>
      </FormField>
      <DescriptionField id={fieldId('description')} className="sm:col-span-2" value={values.description} onChange={(value) => set('description', value)} />
      <FormField
        id={fieldId('mode')}
        label="Interaction Mode"
        className="sm:col-span-2"
        hint="Affects the frontend app template you download and the API interface (completion-messages or chat-messages)."
      >
        <select
          id={fieldId('mode')}
          value={values.interaction_mode}
          onChange={(event) => set('interaction_mode', event.target.value as InteractionMode)}
          className={inputField}
          {...describedBy(fieldId('mode'), { hint: true })}
        >
          <option value="completion">Text Completion - Single input/output</option>
          <option value="chat">Chat Conversation - Multi-turn dialogue</option>
        </select>
      </FormField>
      <VisibilityField id={fieldId('visibility')} value={values.visibility} onChange={(value) => set('visibility', value)} />
      <PriceField
        id={fieldId('price')}
        label="Price per Call (cents)"
        unit="cents"
        min={0}
        clampDisplay
        value={values.price_cents}
        onChange={(value) => set('price_cents', value)}
      />
    </div>
  );
}
