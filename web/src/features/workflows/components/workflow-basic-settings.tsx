import type { Dispatch, SetStateAction } from 'react';
import { AppBasicsFields } from '@/components/app-basics/app-basics-fields';
import { AppStatusField } from '@/components/app-basics/status-field';
import { useFormSection } from '@/components/ui/use-form-state';
import type { WorkflowBasicValues } from '../lib/workflow-detail.utils';

/** The Basic Settings tab: name, status, description, visibility, price in dollars. */
export function WorkflowBasicSettings({ values, onChange }: { values: WorkflowBasicValues; onChange: Dispatch<SetStateAction<WorkflowBasicValues>> }) {
  const { fieldId, set } = useFormSection<WorkflowBasicValues>(onChange);
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
