// The Provider Config tab: Test Config, the provider select and card, the form generated from the
// provider's config schema, Advanced Settings, the test result, and the app's input form.
import type { WorkflowAppInfo, WorkflowProviderInfo, WorkflowTestResult } from '@tollbooth/contract';
import type { Dispatch, SetStateAction } from 'react';
import type { TestRunProps } from '@/components/app-detail/use-test-run';
import { FormAlert } from '@/components/ui/form-alert';
import { CheckboxField, describedBy, FormField, NumberField } from '@/components/ui/form-field';
import { inputField, primaryButton } from '@/components/ui/styles';
import { useFormSection } from '@/components/ui/use-form-state';
import { isSecretLooking, NO_PROVIDERS_MESSAGE, NO_SCHEMA_MESSAGE, providerFormValues, type WorkflowSettingsValues } from '../lib/workflow-detail.utils';
import { InputFormTable } from './workflow-app-info';
import { WorkflowTestResultPanel } from './workflow-test-result';

interface WorkflowProviderConfigProps extends TestRunProps<WorkflowTestResult> {
  providers: WorkflowProviderInfo[];
  values: WorkflowSettingsValues;
  onChange: Dispatch<SetStateAction<WorkflowSettingsValues>>;
  /** The saved app info (input form), shown under the form. */
  appInfo: WorkflowAppInfo | null;
}

/** The advanced settings' number inputs: the values' names, then what NumberField shows. */
const ADVANCED_NUMBERS = [
  {
    name: 'timeout_seconds',
    id: 'timeout',
    label: 'Timeout (seconds)',
    hint: '1–600; a call that takes longer fails with 504 and is not charged.',
    min: 1,
    max: 600,
    step: 1,
  },
  { name: 'max_iterations', id: 'iterations', label: 'Max Iterations', hint: 'Turns one chat conversation may have.', min: 1, max: 1000, step: 1 },
] as const;

const LOGGING = { label: 'Enable Logging', hint: 'Keep the query and answer of chat turns.', className: 'flex items-start gap-2 pt-7' };

export function WorkflowProviderConfig({ providers, values, onChange, onTest, testing, result, testError, appInfo }: WorkflowProviderConfigProps) {
  const provider = providers.find((candidate) => candidate.id === values.provider) ?? null;
  const properties = provider ? Object.entries(provider.config_schema.properties) : [];
  const { fieldId, set } = useFormSection<WorkflowSettingsValues>(onChange);
  const setField = (name: string, value: string) => onChange((current) => ({ ...current, provider_config: { ...current.provider_config, [name]: value } }));

  function selectProvider(next: string) {
    const chosen = providers.find((candidate) => candidate.id === next);
    onChange((current) => ({
      ...current,
      provider: next,
      provider_config: chosen ? providerFormValues(chosen, current.provider_config) : current.provider_config,
    }));
  }

  return (
    <div className="max-w-3xl">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 className="text-lg font-semibold text-gray-900">Provider</h2>
        <button type="button" className={primaryButton} onClick={onTest} disabled={testing || !provider}>
          {testing ? 'Testing...' : 'Test Config'}
        </button>
      </div>

      <div className="mt-4">
        {providers.length === 0 ? (
          <p className="text-sm text-gray-600">{NO_PROVIDERS_MESSAGE}</p>
        ) : (
          <FormField id={fieldId('provider')} label="Workflow Provider">
            <select id={fieldId('provider')} value={values.provider} onChange={(event) => selectProvider(event.target.value)} className={inputField}>
              <option value="">Select a provider...</option>
              {providers.map((candidate) => (
                <option key={candidate.id} value={candidate.id}>
                  {candidate.name} - {candidate.description}
                </option>
              ))}
            </select>
          </FormField>
        )}
      </div>

      {provider ? (
        <div className="mt-4 rounded-md bg-indigo-50 p-4 ring-1 ring-indigo-100" data-testid="provider-card">
          <h3 className="text-sm font-semibold text-indigo-900">{provider.name}</h3>
          <p className="mt-1 text-sm text-indigo-800">{provider.description}</p>
          <p className="mt-1 font-mono text-xs text-indigo-700">{provider.slug}</p>
        </div>
      ) : null}

      {provider ? (
        <div className="mt-6 grid grid-cols-1 gap-5">
          {properties.length === 0 ? (
            <p className="text-sm text-gray-600">{NO_SCHEMA_MESSAGE}</p>
          ) : (
            properties.map(([name, field]) => {
              const required = provider.config_schema.required.includes(name);
              return (
                <FormField key={name} id={fieldId(`config-${name}`)} label={`${field.title}${required ? ' *' : ''}`} hint={field.description || undefined}>
                  <input
                    id={fieldId(`config-${name}`)}
                    type={isSecretLooking(field.title) ? 'password' : 'text'}
                    autoComplete="off"
                    placeholder={field.default ?? ''}
                    value={values.provider_config[name] ?? ''}
                    onChange={(event) => setField(name, event.target.value)}
                    className={inputField}
                    {...describedBy(fieldId(`config-${name}`), { hint: Boolean(field.description) })}
                  />
                </FormField>
              );
            })
          )}
        </div>
      ) : null}

      <section className="mt-8" aria-labelledby={fieldId('advanced')}>
        <h3 id={fieldId('advanced')} className="text-base font-semibold text-gray-900">
          Advanced Settings
        </h3>
        <div className="mt-4 grid grid-cols-1 gap-5 sm:grid-cols-3">
          {ADVANCED_NUMBERS.map(({ name, ...field }) => (
            <NumberField key={field.id} {...field} id={fieldId(field.id)} value={values[name]} onChange={(value) => set(name, value)} />
          ))}
          <CheckboxField {...LOGGING} id={fieldId('logging')} checked={values.enable_logging} onChange={(checked) => set('enable_logging', checked)} />
        </div>
      </section>

      <FormAlert message={testError} className="mt-6" as="p" />
      {result ? <WorkflowTestResultPanel result={result} /> : <InputFormTable appInfo={appInfo} />}
    </div>
  );
}
