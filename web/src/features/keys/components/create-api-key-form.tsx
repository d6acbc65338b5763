import type { ApiKeyCreated } from '@tollbooth/contract';
import { type FormEvent, useId, useState } from 'react';
import { FormAlert } from '@/components/ui/form-alert';
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
        <div>
          <label htmlFor={`${id}-name`} className="block text-sm font-medium text-gray-700">
            Key Name
          </label>
          <input
            id={`${id}-name`}
            type="text"
            required
            maxLength={MAX_KEY_NAME_LENGTH}
            autoComplete="off"
            placeholder="Production server"
            value={values.name}
            onChange={(event) => set('name', event.target.value)}
            aria-invalid={errors.name ? true : undefined}
            aria-describedby={errors.name ? `${id}-name-error` : undefined}
            className={`${inputField} mt-1`}
          />
          {errors.name ? (
            <p id={`${id}-name-error`} className="mt-1 text-sm text-red-600">
              {errors.name}
            </p>
          ) : null}
        </div>
        <div>
          <label htmlFor={`${id}-limit`} className="block text-sm font-medium text-gray-700">
            Monthly Spend Limit (cents)
          </label>
          <input
            id={`${id}-limit`}
            type="number"
            min={0}
            step={1}
            inputMode="numeric"
            placeholder="No limit"
            value={values.spendLimit}
            onChange={(event) => set('spendLimit', event.target.value)}
            aria-invalid={errors.spendLimit ? true : undefined}
            aria-describedby={errors.spendLimit ? `${id}-limit-error` : undefined}
            className={`${inputField} mt-1`}
          />
          {errors.spendLimit ? (
            <p id={`${id}-limit-error`} className="mt-1 text-sm text-red-600">
              {errors.spendLimit}
            </p>
          ) : null}
        </div>
        <div>
          <label htmlFor={`${id}-max-price`} className="block text-sm font-medium text-gray-700">
            Max Price per Call (cents)
          </label>
          <input
            id={`${id}-max-price`}
            type="number"
            min={0}
            step={1}
            inputMode="numeric"
            placeholder="No cap"
            value={values.maxPrice}
            onChange={(event) => set('maxPrice', event.target.value)}
            aria-invalid={errors.maxPrice ? true : undefined}
            aria-describedby={`${id}-max-price-hint${errors.maxPrice ? ` ${id}-max-price-error` : ''}`}
            className={`${inputField} mt-1`}
          />
          <p id={`${id}-max-price-hint`} className="mt-1 text-xs text-gray-500">
            Calls to apps priced above it are refused (402) and not charged.
          </p>
          {errors.maxPrice ? (
            <p id={`${id}-max-price-error`} className="mt-1 text-sm text-red-600">
              {errors.maxPrice}
            </p>
          ) : null}
        </div>
      </div>
      <button type="submit" className={primaryButton} disabled={createKey.isPending}>
        {createKey.isPending ? 'Creating...' : 'Create Key'}
      </button>
    </form>
  );
}
