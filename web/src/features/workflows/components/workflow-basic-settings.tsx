import type { Dispatch, ReactNode, SetStateAction } from 'react';
import { AppBasicsFields, DETAIL_SETTINGS } from '@/components/app-basics/app-basics-fields';
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

  return <AppBasicsFields {...DETAIL_SETTINGS} form={{ values, set, fieldId }} besideName={statusField} pricePanel={pricePanel} />;
}
