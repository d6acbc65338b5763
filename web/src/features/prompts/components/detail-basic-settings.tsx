import type { InteractionMode } from '@tollbooth/contract';
import type { Dispatch, ReactNode, SetStateAction } from 'react';
import { AppBasicsFields, DETAIL_SETTINGS } from '@/components/app-basics/app-basics-fields';
import { AppStatusField } from '@/components/app-basics/status-field';
import { CheckboxField, describedBy, FormField } from '@/components/ui/form-field';
import { inputField } from '@/components/ui/styles';
import { useFormSection } from '@/components/ui/use-form-state';
import type { DetailBasicValues } from '../lib/prompt-detail.utils';

interface DetailBasicSettingsProps {
  values: DetailBasicValues;
  /** Takes an update of the current values, so quick successive edits never work on a stale copy. */
  onChange: Dispatch<SetStateAction<DetailBasicValues>>;
  /** The app's rate card, read-only, in place of the whole-cent price field (a card priced another way, issue 60). */
  pricePanel?: ReactNode;
}

const CALLER_TOOLS = {
  label: 'Let callers send tools and response formats',
  hint: 'Through the OpenAI-compatible endpoints, callers may pass their own tools (function calling) and ask for JSON mode or a JSON schema. Turn off to answer with your prompt alone: such calls are then refused with a 400, not charged.',
  className: 'mt-6 flex max-w-3xl items-start gap-2',
};

export function DetailBasicSettings({ values, onChange, pricePanel }: DetailBasicSettingsProps) {
  const { fieldId, set } = useFormSection<DetailBasicValues>(onChange);

  const statusField = <AppStatusField id={fieldId('status')} value={values.status} onChange={(status) => set('status', status)} />;
  const modeField = (
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
  );

  return (
    <>
      <AppBasicsFields {...DETAIL_SETTINGS} form={{ values, set, fieldId }} besideName={statusField} beforeVisibility={modeField} pricePanel={pricePanel} />
      <CheckboxField {...CALLER_TOOLS} id={fieldId('caller-tools')} checked={values.caller_tools} onChange={(checked) => set('caller_tools', checked)} />
    </>
  );
}
