import { type Dispatch, type SetStateAction, useId } from 'react';
import { AppBasicsFields } from '@/components/app-basics/app-basics-fields';
import { AppStatusField } from '@/components/app-basics/status-field';
import type { WorkflowBasicValues } from '../lib/workflow-detail.utils';

/** The Basic Settings tab: name, status, description, visibility, price in dollars. */
export function WorkflowBasicSettings({ values, onChange }: { values: WorkflowBasicValues; onChange: Dispatch<SetStateAction<WorkflowBasicValues>> }) {
  const id = useId();
  const fieldId = (name: string) => `${id}-${name}`;
  const set = <K extends keyof WorkflowBasicValues>(name: K, value: WorkflowBasicValues[K]) => onChange((current) => ({ ...current, [name]: value }));
  const statusField = <AppStatusField id={fieldId('status')} value={values.status} onChange={(status) => set('status', status)} />;

  return (
    <AppBasicsFields
      layout="settings"
      form={{ values, set, fieldId }}
      nameLabel="Application Name"
      price={{ key: 'price', label: 'Price per Call (USD)', min: 0, clampDisplay: true }}
      besideName={statusField}
    />
  );
}
