import type { AppStatus } from '@tollbooth/contract';
import { type Dispatch, type SetStateAction, useId } from 'react';
import { DescriptionField, NameField, VisibilityField } from '@/components/app-basics/basic-fields';
import { PriceField } from '@/components/app-basics/price-field';
import { FormField } from '@/components/ui/form-field';
import { inputField } from '@/components/ui/styles';
import type { WorkflowBasicValues } from '../lib/workflow-detail.utils';

/** The Basic Settings tab: name, status, description, visibility, price in cents. */
export function WorkflowBasicSettings({ values, onChange }: { values: WorkflowBasicValues; onChange: Dispatch<SetStateAction<WorkflowBasicValues>> }) {
  const id = useId();
  const fieldId = (name: string) => `${id}-${name}`;
  const set = <K extends keyof WorkflowBasicValues>(name: K, value: WorkflowBasicValues[K]) => onChange((current) => ({ ...current, [name]: value }));
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
