import type { AppType, InteractionMode } from '@tollbooth/contract';
import type { FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { AppBasicsFields } from '@/components/app-basics/app-basics-fields';
import { HighPriceWarning, useHighPriceGuard } from '@/components/pricing/high-price-guard';
import { PRICE_FORM_FIELD_ORDER, perCallPriceCents } from '@/components/pricing/price-form.utils';
import { PriceFormFields } from '@/components/pricing/price-form-fields';
import { FormAlert } from '@/components/ui/form-alert';
import { describedBy, FormField } from '@/components/ui/form-field';
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
  const typeAndMode = (
    <>
      <FormField id={fieldId('type')} label="Type" error={errors.type}>
        <select
          id={fieldId('type')}
          name="type"
          required
          value={values.type}
          onChange={(event) => set('type', event.target.value as AppType | '')}
          className={inputField}
          {...describedBy(fieldId('type'), { error: errors.type })}
        >
          <option value="prompt">Prompt</option>
          <option value="workflow">Workflow</option>
        </select>
      </FormField>

      {isWorkflow ? null : (
        <FormField id={fieldId('interaction_mode')} label="Interaction Mode" error={errors.interaction_mode}>
          <select
            id={fieldId('interaction_mode')}
            name="interaction_mode"
            required
            value={values.interaction_mode}
            onChange={(event) => set('interaction_mode', event.target.value as InteractionMode | '')}
            className={inputField}
            {...describedBy(fieldId('interaction_mode'), { error: errors.interaction_mode })}
          >
            <option value="completion">Completion</option>
            <option value="chat">Chat</option>
          </select>
        </FormField>
      )}
    </>
  );
  const providerSettings = isWorkflow ? (
    <div className="grid grid-cols-1 gap-6 sm:grid-cols-2">
      <FormField id={fieldId('provider_app_id')} label="Provider App ID" error={errors.provider_app_id}>
        <input
          id={fieldId('provider_app_id')}
          name="provider_app_id"
          type="text"
          required
          autoComplete="off"
          value={values.provider_app_id}
          onChange={(event) => set('provider_app_id', event.target.value)}
          className={inputField}
          {...describedBy(fieldId('provider_app_id'), { error: errors.provider_app_id })}
        />
      </FormField>
      <FormField id={fieldId('provider_api_key')} label="Provider API Key" error={errors.provider_api_key}>
        <input
          id={fieldId('provider_api_key')}
          name="provider_api_key"
          type="password"
          required
          autoComplete="new-password"
          value={values.provider_api_key}
          onChange={(event) => set('provider_api_key', event.target.value)}
          className={inputField}
          {...describedBy(fieldId('provider_api_key'), { error: errors.provider_api_key })}
        />
      </FormField>
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
