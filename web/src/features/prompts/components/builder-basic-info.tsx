import type { AppStatus } from '@tollbooth/contract';
import { slugify } from '@tollbooth/contract';
import type { Dispatch, SetStateAction } from 'react';
import { AppBasicsFields } from '@/components/app-basics/app-basics-fields';
import { describedBy, FormField } from '@/components/ui/form-field';
import { inputField } from '@/components/ui/styles';
import { useFormSection } from '@/components/ui/use-form-state';
import { type PromptDraft, SLUG_LOCKED_HINT, withName } from '../lib/prompt-builder.utils';
import type { DeclaredField } from '../lib/template-variables';
import { PromptEditor } from './prompt-editor';

interface BuilderBasicInfoProps {
  draft: PromptDraft;
  /** Takes an update of the current draft, so quick successive edits never work on a stale copy. */
  onChange: Dispatch<SetStateAction<PromptDraft>>;
  /** The application's slug once it exists: the slug is then locked. */
  savedSlug: string | null;
  fields: readonly DeclaredField[];
  /** A sentence under the price, e.g. that the app is priced another way (issue 60). */
  priceNote?: string;
}

function slugHint(draft: PromptDraft, savedSlug: string | null) {
  if (savedSlug) return SLUG_LOCKED_HINT;
  const fromName = slugify(draft.name);
  // The server derives the slug from the name; an edited slug is shown for reference only.
  if (draft.slugEdited && fromName && draft.slug !== fromName) return `Slugs follow the name: this prompt will be saved as ${fromName}.`;
  return 'Generated from the name; a number is added when it is already taken.';
}

export function BuilderBasicInfo({ draft, onChange, savedSlug, fields, priceNote }: BuilderBasicInfoProps) {
  const { fieldId, set } = useFormSection<PromptDraft>(onChange);
  // A new name also moves the slug while the slug follows the name.
  const setBasic = <K extends keyof PromptDraft>(name: K, value: PromptDraft[K]) =>
    name === 'name' ? onChange((current) => withName(current, value as string)) : set(name, value);

  const slugField = (
    <FormField id={fieldId('slug')} label="URL Slug" hint={slugHint(draft, savedSlug)}>
      <input
        id={fieldId('slug')}
        type="text"
        autoComplete="off"
        value={savedSlug ?? draft.slug}
        disabled={savedSlug !== null}
        onChange={(event) => {
          const slug = event.target.value;
          onChange((current) => ({ ...current, slug, slugEdited: true }));
        }}
        className={`${inputField} font-mono`}
        {...describedBy(fieldId('slug'), { hint: true })}
      />
    </FormField>
  );
  const statusField = (
    <FormField id={fieldId('status')} label="Status">
      <select id={fieldId('status')} value={draft.status} onChange={(event) => set('status', event.target.value as AppStatus)} className={inputField}>
        <option value="draft">Draft</option>
        <option value="live">Live</option>
        <option value="archived">Archived</option>
      </select>
    </FormField>
  );

  return (
    <div className="space-y-6">
      <AppBasicsFields
        layout="builder"
        form={{ values: draft, set: setBasic, fieldId }}
        nameLabel="Prompt Name"
        embedLabel="Embeddable"
        price={{ key: 'price', label: 'Price per Call (USD)', min: 0.01, note: priceNote }}
        besideName={slugField}
        beforeVisibility={statusField}
      />

      <PromptEditor
        id={fieldId('system-prompt')}
        label="System Prompt"
        height={160}
        value={draft.system_prompt}
        onChange={(value) => set('system_prompt', value)}
        fields={fields}
        hint="Instructions sent to the model as they are, before the user prompt."
      />
      <PromptEditor
        id={fieldId('template')}
        label="User Prompt Template"
        height={220}
        value={draft.user_prompt_template}
        onChange={(value) => set('user_prompt_template', value)}
        fields={fields}
        hint={
          <>
            Write <code className="font-mono">{'{{field}}'}</code> where a call's input field goes; type <code className="font-mono">{'{{'}</code> to pick a
            declared field.
          </>
        }
      />
    </div>
  );
}
