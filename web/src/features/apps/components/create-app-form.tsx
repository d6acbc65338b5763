import type { AppType, InteractionMode } from '@tollbooth/contract';
import type { FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { AppBasicsFields } from '@/components/app-basics/app-basics-fields';
import { HighPriceWarning, useHighPriceGuard } from '@/components/pricing/high-price-guard';
import { PRICE_FORM_FIELD_ORDER, perCallPriceCents } from '@/components/pricing/price-form.utils';
import { PriceFormFields } from '@/components/pricing/price-form-fields';
import { FormAlert } from '@/components/ui/form-alert';
import { describedBy, FormField } from '@/components/ui/form-field';
import { Options } from '@/components/ui/options';
import { inputField, primaryButton, secondaryButton } from '@/components/ui/styles';
import { useCreateApp } from '@/lib/api/apps/create-app';
import { useTestWorkflowProvider } from '@/lib/api/workflows/test-workflow-provider';
import { getErrorMessage, isUnauthorizedError } from '@/lib/errors';
import { formatPrice } from '@/lib/price';
import { APP_PRICE_FIELD, buildCreateBody, type CreateAppValues, initialCreateValues, providerConfigOf, validateCreateApp } from '../lib/app-form.utils';
import { serverFieldErrors } from '../lib/app-form-errors';
import { useAppForm } from '../lib/use-app-form';

const fieldOrder: Array<keyof CreateAppValues> = [
  'name',
  'description',
  'type',
  'interaction_mode',
  'visibility',
  'provider_app_id',
  'provider_api_key',
  'provider_base_url',
  ...PRICE_FORM_FIELD_ORDER,
];

const TYPE_OPTIONS: { value: AppType; label: string }[] = [
  { value: 'prompt', label: 'Prompt' },
  { value: 'workflow', label: 'Workflow' },
];
const MODE_OPTIONS: { value: InteractionMode; label: string }[] = [
  { value: 'completion', label: 'Completion' },
  { value: 'chat', label: 'Chat' },
];

export function CreateAppForm({ initialType }: { initialType: AppType }) {
  const navigate = useNavigate();
  const createApp = useCreateApp();
  const testProvider = useTestWorkflowProvider();
  const form = useAppForm(() => initialCreateValues(initialType), fieldOrder);
  const { fieldId, values, errors, set, accept } = form;
  const highPrice = useHighPriceGuard();

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    create();
  }

  /** `confirmedCents`: the price the high-price warning's button confirmed. */
  function create(confirmedCents: number | null = null) {
    if (createApp.isPending) return;
    if (!accept(validateCreateApp(values))) return;
    // A price per call far above what calls cost asks first; a per-token or cost-plus card is weighed by the cost panel.
    const priceCents = perCallPriceCents(values);
    if (priceCents !== null && !highPrice.allow(priceCents, null, confirmedCents)) return;
    // The tested Dify app's mode, when the test was of the settings being created.
    const tested = testProvider.data?.success && testProvider.variables && JSON.stringify(testProvider.variables) === JSON.stringify(providerConfigOf(values));
    createApp.mutate(buildCreateBody(values, tested ? testProvider.data?.app_info?.mode : undefined), {
      onSuccess: (app) => navigate(`/applications/${app.slug}`),
      // A 400 that names a price field shows on that field too (the alert above says it for the form).
      onError: (error) => {
        const found = serverFieldErrors(error, values.price_form);
        if (found) accept(found);
      },
    });
  }

  const serverError = createApp.error && !isUnauthorizedError(createApp.error) ? getErrorMessage(createApp.error) : null;
  const isWorkflow = values.type === 'workflow';

  // The create form's own fields, placed among the basics: the type and interaction mode beside
  // the visibility, a workflow's provider settings before the price.
  const choice = <K extends 'type' | 'interaction_mode'>(name: K, label: string, options: { value: CreateAppValues[K]; label: string }[]) => (
    <FormField id={fieldId(name)} label={label} error={errors[name]}>
      <select
        id={fieldId(name)}
        name={name}
        required
        value={values[name]}
        onChange={(event) => set(name, event.target.value as CreateAppValues[K])}
        className={inputField}
        {...describedBy(fieldId(name), { error: errors[name] })}
      >
        <Options options={options} />
      </select>
    </FormField>
  );
  const typeAndMode = (
    <>
      {choice('type', 'Type', TYPE_OPTIONS)}

      {isWorkflow ? null : choice('interaction_mode', 'Interaction Mode', MODE_OPTIONS)}
    </>
  );
  /** A required provider setting; the key is typed hidden and never autofilled. */
  const providerInput = (name: 'provider_app_id' | 'provider_api_key', label: string, secret: boolean) => (
    <FormField id={fieldId(name)} label={label} error={errors[name]}>
      <input
        id={fieldId(name)}
        name={name}
        type={secret ? 'password' : 'text'}
        required
        autoComplete={secret ? 'new-password' : 'off'}
        value={values[name]}
        onChange={(event) => set(name, event.target.value)}
        className={inputField}
        {...describedBy(fieldId(name), { error: errors[name] })}
      />
    </FormField>
  );
  const providerSettings = isWorkflow ? (
    <div className="grid grid-cols-1 gap-6 sm:grid-cols-2">
      {providerInput('provider_app_id', 'Provider App ID', false)}
      {providerInput('provider_api_key', 'Provider API Key', true)}
      <FormField
        id={fieldId('provider_base_url')}
        label="Provider Base URL"
        className="sm:col-span-2"
        error={errors.provider_base_url}
        hint="Dify Cloud: https://api.dify.ai/v1. A self-hosted Dify: https://your-dify/v1."
      >
        <input
          id={fieldId('provider_base_url')}
          name="provider_base_url"
          type="url"
          autoComplete="off"
          value={values.provider_base_url}
          onChange={(event) => set('provider_base_url', event.target.value)}
          className={inputField}
          {...describedBy(fieldId('provider_base_url'), { error: errors.provider_base_url, hint: true })}
        />
      </FormField>
      <div className="sm:col-span-2">
        <button
          type="button"
          className={secondaryButton}
          disabled={testProvider.isPending || !values.provider_api_key.trim()}
          onClick={() => testProvider.mutate(providerConfigOf(values))}
        >
          {testProvider.isPending ? 'Testing...' : 'Test Connection'}
        </button>
        <div aria-live="polite">
          {testProvider.data ? (
            <div
              role="status"
              className={`mt-3 rounded-md p-3 text-sm ring-1 ${testProvider.data.success ? 'bg-green-50 text-green-800 ring-green-200' : 'bg-red-50 text-red-700 ring-red-200'}`}
              data-testid="provider-test-result"
            >
              <p className="font-semibold">{testProvider.data.success ? 'Configuration Valid' : 'Configuration Error'}</p>
              <p>{testProvider.data.message}</p>
              {testProvider.data.error ? <p>{testProvider.data.error}</p> : null}
              {testProvider.data.app_info ? (
                <p>
                  {testProvider.data.app_info.name} ({testProvider.data.app_info.mode})
                </p>
              ) : null}
            </div>
          ) : null}
          <FormAlert
            message={testProvider.error && !isUnauthorizedError(testProvider.error) ? `Test failed: ${getErrorMessage(testProvider.error)}` : null}
            className="mt-3"
            as="p"
          />
        </div>
      </div>
    </div>
  ) : null;

  return (
    <form onSubmit={handleSubmit} noValidate className="space-y-6 rounded-lg bg-white p-6 shadow-sm ring-1 ring-gray-200">
      <FormAlert message={serverError} />

      <AppBasicsFields
        layout="create"
        form={form}
        price={{ ...APP_PRICE_FIELD, inputClassName: `${inputField} sm:max-w-xs`, outputTestId: 'price-display' }}
        pricePanel={<PriceFormFields form={form} appType={values.type} outputTestId="price-display" />}
        beforeVisibility={typeAndMode}
        afterVisibility={providerSettings}
      />

      <HighPriceWarning
        warning={highPrice.warning}
        label={`Create at ${formatPrice(highPrice.warnedPriceCents)} per call`}
        onConfirm={() => create(highPrice.warnedPriceCents)}
      />

      <div className="flex justify-end gap-3 border-t border-gray-200 pt-6">
        <Link to="/applications" className={secondaryButton}>
          Cancel
        </Link>
        <button type="submit" className={primaryButton} disabled={createApp.isPending}>
          {createApp.isPending ? 'Creating...' : 'Create Application'}
        </button>
      </div>
    </form>
  );
}
