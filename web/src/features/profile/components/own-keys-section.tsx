// Bring your own key: the creator's own provider keys, one per provider. Keys are shown
// masked (last four characters); Test Connection asks the provider for one token with the values
// in the form (or the stored key when the key field is empty), which is what Save would store, and
// says which it tested: a key typed but not saved is said to be unsaved (issue 61, trap 7). Each
// provider's save button names its key, apart from the profile's own Save, and the saved state
// (masked key, when) is shown beside the title.
import type { CredentialKind, ProviderCredential, ProviderCredentialTestResult } from '@tollbooth/contract';
import { type FormEvent, useId, useState } from 'react';
import { ErrorLine } from '@/components/ui/form-alert';
import { describedBy, FormField } from '@/components/ui/form-field';
import { Spinner } from '@/components/ui/spinner';
import { inputField, primaryButton, secondaryButton } from '@/components/ui/styles';
import { TitledCard } from '@/components/ui/titled-card';
import { getErrorMessage, isUnauthorizedError } from '@/lib/errors';
import { formatDateTime } from '@/lib/format';
import { useOwnKeys, useRemoveOwnKey, useSaveOwnKey, useTestOwnKey } from '../api/own-keys';

const PROVIDERS: { kind: CredentialKind; title: string; keyHint: string }[] = [
  { kind: 'openai', title: 'OpenAI-compatible', keyHint: 'OpenAI, OpenRouter, LiteLLM, vLLM, Ollama… (the GPT and Mixtral models)' },
  { kind: 'anthropic', title: 'Anthropic', keyHint: 'The Claude models' },
  { kind: 'gemini', title: 'Gemini', keyHint: 'The Gemini models' },
];

function ProviderKeyForm({ kind, title, keyHint, stored }: { kind: CredentialKind; title: string; keyHint: string; stored: ProviderCredential | undefined }) {
  const id = useId();
  const [baseUrl, setBaseUrl] = useState(stored?.base_url ?? (kind === 'openai' ? 'https://api.openai.com/v1' : ''));
  const [apiKey, setApiKey] = useState('');
  const [testResult, setTestResult] = useState<(ProviderCredentialTestResult & { unsaved: boolean }) | null>(null);
  const [justSaved, setJustSaved] = useState(false);
  const save = useSaveOwnKey();
  const remove = useRemoveOwnKey();
  const test = useTestOwnKey();
  const body = () => ({
    ...(kind === 'openai' && baseUrl.trim() !== '' ? { base_url: baseUrl.trim() } : {}),
    ...(apiKey.trim() !== '' ? { api_key: apiKey.trim() } : {}),
  });
  const onSave = (event: FormEvent) => {
    event.preventDefault();
    setJustSaved(false);
    save.mutate(
      { kind, body: body() },
      {
        onSuccess: () => {
          setApiKey('');
          setJustSaved(true);
          // A test of the typed key described a key that is now the saved one.
          setTestResult((current) => (current ? { ...current, unsaved: false } : current));
        },
      },
    );
  };
  const error = save.error ?? remove.error ?? test.error;

  return (
    <form onSubmit={onSave} className="space-y-3 rounded-md p-4 ring-1 ring-gray-200" aria-labelledby={`${id}-title`}>
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h3 id={`${id}-title`} className="text-sm font-semibold text-gray-900">
          {title}
        </h3>
        <span className="text-xs text-gray-500" data-testid={`own-key-state-${kind}`}>
          {stored ? (
            <>
              <span className="font-medium text-green-800">Saved</span> key <span className="font-mono text-gray-800">{stored.api_key_masked}</span>
              {stored.updated_at ? ` · ${formatDateTime(stored.updated_at)}` : null}
            </>
          ) : (
            'Not set'
          )}
        </span>
      </div>
      <p className="text-xs text-gray-500">{keyHint}</p>
      {kind === 'openai' ? (
        <FormField
          id={`${id}-base-url`}
          label="Base URL"
          hint="Up to the version segment, e.g. https://api.openai.com/v1; private and local addresses only where the operator allows them"
        >
          <input
            id={`${id}-base-url`}
            type="url"
            value={baseUrl}
            onChange={(event) => setBaseUrl(event.target.value)}
            className={inputField}
            {...describedBy(`${id}-base-url`, { hint: true })}
          />
        </FormField>
      ) : null}
      <FormField id={`${id}-key`} label="API key" hint={stored ? 'Leave empty to keep the saved key' : undefined}>
        <input
          id={`${id}-key`}
          type="password"
          autoComplete="off"
          value={apiKey}
          placeholder={stored ? stored.api_key_masked : ''}
          onChange={(event) => {
            setApiKey(event.target.value);
            setJustSaved(false);
          }}
          className={inputField}
          {...describedBy(`${id}-key`, { hint: Boolean(stored) })}
        />
      </FormField>
      <div className="flex flex-wrap items-center gap-2">
        <button type="submit" className={primaryButton} disabled={save.isPending || (!stored && apiKey.trim() === '')}>
          {save.isPending ? 'Saving...' : `Save ${title} key`}
        </button>
        <button
          type="button"
          className={secondaryButton}
          disabled={test.isPending || (!stored && apiKey.trim() === '')}
          onClick={() => {
            setTestResult(null);
            // What is tested is what Save would store: unsaved when a key is typed or the base URL differs from the saved one.
            const unsaved = apiKey.trim() !== '' || (kind === 'openai' && (stored?.base_url ?? '') !== baseUrl.trim());
            test.mutate({ kind, body: body() }, { onSuccess: (result) => setTestResult({ ...result, unsaved }) });
          }}
        >
          {test.isPending ? 'Testing...' : 'Test Connection'}
        </button>
        {stored ? (
          <button
            type="button"
            className={secondaryButton}
            disabled={remove.isPending}
            onClick={() =>
              remove.mutate(kind, {
                onSuccess: () => {
                  setBaseUrl(kind === 'openai' ? 'https://api.openai.com/v1' : '');
                  setTestResult(null);
                  setJustSaved(false);
                },
              })
            }
          >
            Remove
          </button>
        ) : null}
      </div>
      <div aria-live="polite" className="space-y-1">
        {testResult ? (
          <p className={`text-sm ${testResult.success ? 'text-green-700' : 'text-red-700'}`} data-testid={`own-key-test-${kind}`}>
            {testResult.unsaved ? 'Tested the settings as entered (not saved): ' : 'Tested the saved key: '}
            {testResult.success ? `✓ ${testResult.message} (${testResult.latency_ms} ms)` : `Connection failed: ${testResult.message}`}
          </p>
        ) : null}
        {testResult?.unsaved && testResult.success && !justSaved ? (
          <p className="rounded-md bg-amber-50 p-2 text-sm text-amber-900 ring-1 ring-amber-300">
            Not saved yet: apps use these settings only after <strong>Save {title} key</strong>.
          </p>
        ) : null}
        {justSaved && !save.isPending ? (
          <p className="text-sm text-green-700" data-testid={`own-key-saved-${kind}`}>
            {title} key saved{stored ? ` (${stored.api_key_masked})` : ''}: apps set to My own key use it now.
          </p>
        ) : null}
        {error && !isUnauthorizedError(error) ? <ErrorLine>{getErrorMessage(error)}</ErrorLine> : null}
      </div>
    </form>
  );
}

/** The profile's "Your provider keys" section (bring your own key). */
export function OwnKeysSection() {
  const keys = useOwnKeys();
  return (
    <TitledCard id="provider-keys" title="Your provider keys">
      <p className="mt-1 text-sm text-gray-600">
        Bring your own key: a prompt app set to <strong>My own key</strong> calls its model with your key, and you pay your provider directly — no model cost is
        charged here. Keys are stored encrypted and never shown again.
      </p>
      <div className="mt-6">
        {keys.data ? (
          <div className="grid grid-cols-1 gap-4 lg:grid-cols-3">
            {PROVIDERS.map((provider) => {
              const stored = keys.data.results.find((row) => row.kind === provider.kind);
              // Keyed by the provider only: the form outlives a save, so it can say the key was saved.
              return <ProviderKeyForm key={provider.kind} {...provider} stored={stored} />;
            })}
          </div>
        ) : keys.isError ? (
          isUnauthorizedError(keys.error) ? null : (
            <p className="text-sm text-red-700">Failed to load provider keys: {getErrorMessage(keys.error)}</p>
          )
        ) : (
          <Spinner label="Loading provider keys" />
        )}
      </div>
    </TitledCard>
  );
}
