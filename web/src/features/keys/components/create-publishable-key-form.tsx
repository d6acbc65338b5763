// Creates a publishable key (pk_…) for the embed widget: the sites that may show it, the apps it
// may call, and what it may spend. The server checks every field and names the first bad one.
import { type FormEvent, useId, useState } from 'react';
import { FormAlert } from '@/components/ui/form-alert';
import { inputField, primaryButton } from '@/components/ui/styles';
import { getErrorMessage, isUnauthorizedError } from '@/lib/errors';
import { useCreateApiKey } from '../api/create-api-key';
import { ORIGINS_HINT } from './origin-list';

const emptyValues = { name: '', origins: '', apps: '', daily: '', monthly: '', visitor: '10' };
type Values = typeof emptyValues;

const list = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter(Boolean);

export function CreatePublishableKeyForm() {
  const id = useId();
  const createKey = useCreateApiKey();
  const [values, setValues] = useState(emptyValues);
  const set = (name: keyof Values, value: string) => setValues((current) => ({ ...current, [name]: value }));

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (createKey.isPending) return;
    createKey.mutate(
      {
        name: values.name.trim(),
        kind: 'publishable',
        allowed_origins: list(values.origins),
        app_slugs: list(values.apps),
        daily_spend_limit_cents: Number(values.daily),
        monthly_spend_limit_cents: Number(values.monthly),
        visitor_rate_limit_per_minute: Number(values.visitor),
      },
      { onSuccess: () => setValues(emptyValues) },
    );
  }

  const serverError = createKey.error && !isUnauthorizedError(createKey.error) ? getErrorMessage(createKey.error) : null;
  const field = (name: keyof Values, label: string, props: Record<string, string | number | boolean> = {}) => (
    <div>
      <label htmlFor={`${id}-${name}`} className="block text-sm font-medium text-gray-700">
        {label}
      </label>
      <input
        id={`${id}-${name}`}
        required
        autoComplete="off"
        value={values[name]}
        onChange={(event) => set(name, event.target.value)}
        className={`${inputField} mt-1`}
        {...props}
      />
    </div>
  );
  return (
    <form onSubmit={handleSubmit} className="space-y-4" aria-label="Create a publishable key">
      <FormAlert message={serverError} />
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-3">
        {field('name', 'Widget Name', { placeholder: 'My shop', maxLength: 100 })}
        {field('origins', 'Allowed Websites', { placeholder: 'https://shop.example' })}
        {field('apps', 'Apps (slugs)', { placeholder: 'owl-helper' })}
        {field('daily', 'Daily Spend Cap (cents)', { type: 'number', min: 0, step: 1, inputMode: 'numeric' })}
        {field('monthly', 'Monthly Spend Cap (cents)', { type: 'number', min: 0, step: 1, inputMode: 'numeric' })}
        {field('visitor', 'Calls per Visitor per Minute', { type: 'number', min: 1, max: 10000, step: 1, inputMode: 'numeric' })}
      </div>
      <p className="text-xs text-gray-500">
        {ORIGINS_HINT} Separate several websites or apps with commas. The key is public: it sits in your page's source, works only in the widget on these
        websites, for these apps, within these caps, and manages nothing.
      </p>
      <button type="submit" className={primaryButton} disabled={createKey.isPending}>
        {createKey.isPending ? 'Creating...' : 'Create Publishable Key'}
      </button>
    </form>
  );
}
