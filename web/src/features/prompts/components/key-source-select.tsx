// Bring your own key: whether a prompt app's model calls go to the platform's models or to the
// creator's own provider key (saved in the profile). Shown next to the model select.
import type { KeySource } from '@tollbooth/contract';
import { Link } from 'react-router';
import { describedBy, FormField } from '@/components/ui/form-field';
import { Options } from '@/components/ui/options';
import { inputField, textLink } from '@/components/ui/styles';

export const KEY_SOURCE_OPTIONS: { value: KeySource; label: string }[] = [
  { value: 'platform', label: 'Platform models' },
  { value: 'own', label: 'My own key' },
];

export function KeySourceSelect({ id, value, onChange }: { id: string; value: KeySource; onChange: (value: KeySource) => void }) {
  return (
    <FormField
      id={id}
      label="Model key"
      hint={
        value === 'own' ? (
          <>
            Calls use your own provider key from your{' '}
            <Link to="/profile" className={textLink}>
              profile
            </Link>
            ; you pay your provider, no model cost here.
          </>
        ) : (
          'Calls use the platform’s provider keys; their model cost is charged.'
        )
      }
    >
      <select id={id} value={value} onChange={(event) => onChange(event.target.value as KeySource)} className={inputField} {...describedBy(id, { hint: true })}>
        <Options options={KEY_SOURCE_OPTIONS} />
      </select>
    </FormField>
  );
}
