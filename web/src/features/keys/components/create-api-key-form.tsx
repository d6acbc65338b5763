import type { ApiKeyCreated } from '@tollbooth/contract';
import { type FormEvent, useId, useState } from 'react';
import { FormAlert } from '@/components/ui/form-alert';
import { describedBy, FormField } from '@/components/ui/form-field';
import { inputField, primaryButton } from '@/components/ui/styles';
import { getErrorMessage, isUnauthorizedError } from '@/lib/errors';
import { useCreateApiKey } from '../api/create-api-key';
import { type ApiKeyFormErrors, type ApiKeyFormValues, buildCreateKeyBody, MAX_KEY_NAME_LENGTH, validateApiKeyForm } from '../lib/api-key-form.utils';

const emptyValues: ApiKeyFormValues = { name: '', spendLimit: '', maxPrice: '' };

export function CreateApiKeyForm({ onCreated }: { onCreated: (key: ApiKeyCreated) => void }) {
  const id = useId();
  const createKey = useCreateApiKey();
  const [values, setValues] = useState(emptyValues);
  const [errors, setErrors] = useState<ApiKeyFormErrors>({});

  const set = (name: keyof ApiKeyFormValues, value: string) => {
    setValues((current) => ({ ...current, [name]: value }));
    setErrors((current) => ({ ...current, [name]: undefined }));
  };

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (createKey.isPending) return;
    const found = validateApiKeyForm(values);
    setErrors(found);
    if (found.name || found.spendLimit || found.maxPrice) {
      document.getElementById(found.name ? `${id}-name` : found.spendLimit ? `${id}-limit` : `${id}-max-price`)?.focus();
      return;
    }
    createKey.mutate(buildCreateKeyBody(values), {
      onSuccess: (created) => {
        setValues(emptyValues);
        onCreated(created);
      },
    });
  }

  const serverError = createKey.error && !isUnauthorizedError(createKey.error) ? getErrorMessage(createKey.error) : null;
  return (
    <form onSubmit={handleSubmit} noValidate className="space-y-4">
      <FormAlert message={serverError} />
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-3">
        <FormField id={`${id}-name`} label="Key Name" error={errors.name}>
          <input
            id={`${id}-name`}
            type="text"
            required
            maxLength={MAX_KEY_NAME_LENGTH}
            autoComplete="off"
            placeholder="Production server"
            value={values.name}
            onChange={(event) => set('name', event.target.value)}
            {...describedBy(`${id}-name`, { error: errors.name })}
            className={inputField}
          />
        </FormField>
        <CentsField
          id={`${id}-limit`}
          label="Monthly Spend Limit (cents)"
          placeholder="No limit"
          value={values.spendLimit}
          onChange={(value) => set('spendLimit', value)}
          error={errors.spendLimit}
        />
        <CentsField
          id={`${id}-max-price`}
          label="Max Price per Call (cents)"
          hint="Calls to apps priced above it are refused (402) and not charged."
          placeholder="No cap"
          value={values.maxPrice}
          onChange={(value) => set('maxPrice', value)}
          error={errors.maxPrice}
        />
      </div>
      <button type="submit" className={primaryButton} disabled={createKey.isPending}>
        {createKey.isPending ? 'Creating...' : 'Create Key'}
      </button>
    </form>
  );
}

interface CentsFieldProps {
  id: string;
  label: string;
  hint?: string;
  placeholder: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
}

/** A whole number of cents, empty for none. */
function CentsField({ id, label, hint, placeholder, value, onChange, error }: CentsFieldProps) {
  return (
    <FormField id={id} label={label} hint={hint} error={error}>
      <input
        id={id}
        type="number"
        min={0}
        step={1}
        inputMode="numeric"
        placeholder={placeholder}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        {...describedBy(id, { error, hint: hint !== undefined })}
        className={inputField}
      />
    </FormField>
  );
}
