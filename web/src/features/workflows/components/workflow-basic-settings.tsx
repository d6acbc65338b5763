import type { Dispatch, ReactNode, SetStateAction } from 'react';
import { AppBasicsFields } from '@/components/app-basics/app-basics-fields';
import { AppStatusField } from '@/components/app-basics/status-field';
import { useFormSection } from '@/components/ui/use-form-state';
import type { WorkflowBasicValues } from '../lib/workflow-detail.utils';

/** The Basic Settings tab: name, status, description, visibility, price in dollars. */
/** `pricePanel`: the app's rate card, read-only, in place of the whole-cent price field (a card priced another way, issue 60). */
export function WorkflowBasicSettings({
  values,
  onChange,
  pricePanel,
}: {
  values: WorkflowBasicValues;
  onChange: Dispatch<SetStateAction<WorkflowBasicValues>>;
  pricePanel?: ReactNode;
}) {
  const { fieldId, set } = useFormSection<WorkflowBasicValues>(onChange);
  const statusField = <AppStatusField id={fieldId('status')} value={values.status} onChange={(status) => set('status', status)} />;

  return (
    <AppBasicsFields
      layout="settings"
      form={{ values, set, fieldId }}
      nameLabel="Application Name"
      price={{ key: 'price', label: 'Price per Call (USD)', min: 0, clampDisplay: true }}
      besideName={statusField}
      pricePanel={pricePanel}
    />
  );
}
