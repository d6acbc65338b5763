import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import { useApps } from '@/lib/api/apps/get-apps';
import { usePromptConfig } from '@/lib/api/prompts/get-prompt-config';
import { useWorkflowConfig } from '@/lib/api/workflows/get-workflow-config';
import { useAuth } from '@/lib/auth/use-auth';
import { AppDetails } from '../components/app-details';
import { AppPicker } from '../components/app-picker';
import { AuthRequiredNotice } from '../components/auth-required-notice';
import { ChatTester } from '../components/chat-tester';
import { CompletionTester } from '../components/completion-tester';
import { InputFieldsForm } from '../components/input-fields-form';
import { useConsoleApp } from '../hooks/use-console-app';
import { useDebouncedValue } from '../hooks/use-debounced-value';
import { extraInputFields } from '../lib/input-fields';
import { workflowInputFields } from '../lib/workflow-input-fields';

const SLUG_DEBOUNCE_MS = 300;

export function ApiTestPage() {
  const [searchParams] = useSearchParams();
  const { status } = useAuth();
  const signedIn = status === 'authenticated';
  const [slug, setSlug] = useState(() => searchParams.get('app') ?? '');
  const [apiKey, setApiKey] = useState('');
  const [stream, setStream] = useState(false);
  const [fieldValues, setFieldValues] = useState<Record<string, string>>({});

  const apps = useApps({ enabled: signedIn });
  useEffect(() => {
    // The spec: a failure to load the application list is only logged.
    if (apps.error) console.error('Failed to load applications', apps.error);
  }, [apps.error]);

  const detailsSlug = useDebouncedValue(slug.trim(), SLUG_DEBOUNCE_MS);
  const app = useConsoleApp(detailsSlug);
  // Only the owner can read the input schema; everyone else sends just `query`.
  const canReadSchema = signedIn && app.data?.is_owner === true && app.data.type === 'prompt';
  const promptConfig = usePromptConfig(detailsSlug, { enabled: canReadSchema });
  // A workflow app's inputs are its Dify app's input form.
  const canReadWorkflow = signedIn && app.data?.is_owner === true && app.data.type === 'workflow';
  const workflowConfig = useWorkflowConfig(detailsSlug, { enabled: canReadWorkflow });
  const fields = canReadSchema
    ? extraInputFields(promptConfig.data?.active_version.input_schema)
    : canReadWorkflow
      ? workflowInputFields(workflowConfig.data)
      : [];

  const testerProps = { slug, apiKey, stream, fields, fieldValues };
  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6 lg:px-8">
      <h1 className="text-2xl font-bold tracking-tight text-gray-900 sm:text-3xl">API Test Console</h1>
      <p className="mt-1 text-sm text-gray-600">Call an application's completion and chat endpoints the way its users will.</p>

      <div className="mt-8 space-y-6">
        {status === 'unauthenticated' ? <AuthRequiredNotice /> : null}
        <AppPicker
          apps={signedIn ? (apps.data ?? []) : null}
          slug={slug}
          onSlugChange={setSlug}
          apiKey={apiKey}
          onApiKeyChange={setApiKey}
          stream={stream}
          onStreamChange={setStream}
        />
        <AppDetails app={app.data} isLoading={app.isLoading} error={app.error} />
        <InputFieldsForm fields={fields} values={fieldValues} onChange={(name, value) => setFieldValues((current) => ({ ...current, [name]: value }))} />
        <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
          <CompletionTester {...testerProps} />
          <ChatTester {...testerProps} />
        </div>
      </div>
    </div>
  );
}
