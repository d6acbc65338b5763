import type { AppStatus } from '@tollbooth/contract';
import { type Dispatch, type SetStateAction, useId } from 'react';
import { AppBasicsFields } from '@/components/app-basics/app-basics-fields';
import { FormField } from '@/components/ui/form-field';
import { inputField } from '@/components/ui/styles';
import type { WorkflowBasicValues } from '../lib/workflow-detail.utils';

/** The Basic Settings tab: name, status, description, visibility, price in cents. */
export function WorkflowBasicSettings({ values, onChange }: { values: WorkflowBasicValues; onChange: Dispatch<SetStateAction<WorkflowBasicValues>> }) {
  const id = useId();
  const fieldId = (name: string) => `${id}-${name}`;
  const set = <K extends keyof WorkflowBasicValues>(name: K, value: WorkflowBasicValues[K]) => onChange((current) => ({ ...current, [name]: value }));
  const statusField = (
    <FormField id={fieldId('status')} label="Status">
      <select id={fieldId('status')} value={values.status} onChange={(event) => set('status', event.target.value as AppStatus)} className={inputField}>
        <option value="draft">Draft</option>
        <option value="live">Live</option>
        <option value="archived">Archived</option>
      </select>
    </FormField>
  );

  return (
    <AppBasicsFields
      layout="settings"
      form={{ values, set, fieldId }}
      nameLabel="Application Name"
      price={{ key: 'price_cents', label: 'Price per Call (cents)', unit: 'cents', min: 0, clampDisplay: true }}
      besideName={statusField}
    />
  );
}
