import type { AppStatus, Visibility } from '@tollbooth/contract';
import { type Dispatch, type SetStateAction, useId } from 'react';
import { describedBy, FormField } from '@/components/ui/form-field';
import { inputField } from '@/components/ui/styles';
import { formatCents } from '@/lib/format';
import { parseCents, type WorkflowBasicValues } from '../lib/workflow-detail.utils';

/** The Basic Settings tab: name, status, description, visibility, price in cents. */
export function WorkflowBasicSettings({ values, onChange }: { values: WorkflowBasicValues; onChange: Dispatch<SetStateAction<WorkflowBasicValues>> }) {
  const id = useId();
  const fieldId = (name: string) => `${id}-${name}`;
  const set = <K extends keyof WorkflowBasicValues>(name: K, value: WorkflowBasicValues[K]) => onChange((current) => ({ ...current, [name]: value }));
  return (
    <div className="grid max-w-3xl grid-cols-1 gap-5 sm:grid-cols-2">
      <FormField id={fieldId('name')} label="Application Name">
        <input
          id={fieldId('name')}
          type="text"
          maxLength={100}
          autoComplete="off"
          value={values.name}
          onChange={(event) => set('name', event.target.value)}
          className={inputField}
        />
      </FormField>
      <FormField id={fieldId('status')} label="Status">
        <select id={fieldId('status')} value={values.status} onChange={(event) => set('status', event.target.value as AppStatus)} className={inputField}>
          <option value="draft">Draft</option>
          <option value="live">Live</option>
          <option value="archived">Archived</option>
        </select>
      </FormField>
      <FormField id={fieldId('description')} label="Description" className="sm:col-span-2">
        <textarea
          id={fieldId('description')}
          rows={3}
          maxLength={2000}
          value={values.description}
          onChange={(event) => set('description', event.target.value)}
          className={inputField}
        />
      </FormField>
      <FormField id={fieldId('visibility')} label="Visibility">
        <select
          id={fieldId('visibility')}
          value={values.visibility}
          onChange={(event) => set('visibility', event.target.value as Visibility)}
          className={inputField}
        >
          <option value="private">Private</option>
          <option value="public">Public</option>
          <option value="embed">Embed</option>
        </select>
      </FormField>
      <FormField
        id={fieldId('price')}
        label="Price per Call (cents)"
        hint={<output aria-live="polite">{`${formatCents(parseCents(values.price_cents))} per call`}</output>}
      >
        <input
          id={fieldId('price')}
          type="number"
          min={0}
          step={1}
          inputMode="numeric"
          value={values.price_cents}
          onChange={(event) => set('price_cents', event.target.value)}
          className={inputField}
          {...describedBy(fieldId('price'), { hint: true })}
        />
      </FormField>
    </div>
  );
}
