import type { AppStatus } from '@tollbooth/contract';
import { FormField } from '@/components/ui/form-field';
import { inputField } from '@/components/ui/styles';

/** An application's status (draft, live, archived), as the detail pages' Basic Settings show it. */
export function AppStatusField({ id, value, onChange }: { id: string; value: AppStatus; onChange: (status: AppStatus) => void }) {
  return (
    <FormField id={id} label="Status">
      <select id={id} value={value} onChange={(event) => onChange(event.target.value as AppStatus)} className={inputField}>
        <option value="draft">Draft</option>
        <option value="live">Live</option>
        <option value="archived">Archived</option>
      </select>
    </FormField>
  );
}
