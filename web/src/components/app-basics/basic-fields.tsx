// The basics' fields (spec section 5): name, description and visibility here, the price in
// price-field.tsx. Forms render them through AppBasicsFields (app-basics-fields.tsx), which wires
// them to the form's state and places them for the create, edit, builder and detail screens.
import type { Visibility } from '@tollbooth/contract';
import { describedBy, FormField } from '@/components/ui/form-field';
import { inputField } from '@/components/ui/styles';

interface NameFieldProps {
  id: string;
  /** "Name" in the app forms, "Prompt Name" in the builder, "Application Name" on the detail pages. */
  label?: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  required?: boolean;
  name?: string;
  /** For a form that opens on the user's own click (Edit), so focus follows them there. */
  autoFocus?: boolean;
}

export function NameField({ id, label = 'Name', value, onChange, error, required, name, autoFocus }: NameFieldProps) {
  return (
    <FormField id={id} label={label} error={error}>
      <input
        id={id}
        name={name}
        type="text"
        required={required}
        maxLength={100}
        autoComplete="off"
        // biome-ignore lint/a11y/noAutofocus: only the Edit form asks for it, opened by the user's own click.
        autoFocus={autoFocus}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        className={inputField}
        {...describedBy(id, { error })}
      />
    </FormField>
  );
}

interface VisibilityFieldProps {
  id: string;
  value: Visibility | '';
  onChange: (value: Visibility) => void;
  error?: string;
  required?: boolean;
  name?: string;
  describedBy?: { 'aria-invalid'?: true; 'aria-describedby'?: string };
  /** How the "embed" option reads: "Embed" in the app forms, "Embeddable" in the prompt builder. */
  embedLabel?: string;
}

export function VisibilityField({ id, value, onChange, error, required, name, describedBy, embedLabel = 'Embed' }: VisibilityFieldProps) {
  return (
    <FormField id={id} label="Visibility" error={error}>
      <select
        id={id}
        name={name}
        required={required}
        value={value}
        onChange={(event) => onChange(event.target.value as Visibility)}
        className={inputField}
        {...describedBy}
      >
        <option value="private">Private</option>
        <option value="public">Public</option>
        <option value="embed">{embedLabel}</option>
      </select>
    </FormField>
  );
}

interface DescriptionFieldProps {
  id: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  name?: string;
  className?: string;
}

export function DescriptionField({ id, value, onChange, error, name, className }: DescriptionFieldProps) {
  return (
    <FormField id={id} label="Description" error={error} className={className}>
      <textarea id={id} name={name} rows={3} maxLength={2000} value={value} onChange={(event) => onChange(event.target.value)} className={inputField} />
    </FormField>
  );
}
