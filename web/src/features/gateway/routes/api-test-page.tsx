import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import { useDownloadApp } from '@/lib/api/apps/download-app-frontend';
import { useApps } from '@/lib/api/apps/get-apps';
import { useAppInputs } from '@/lib/api/catalog/get-app-inputs';
import { usePromptConfig } from '@/lib/api/prompts/get-prompt-config';
import { useWorkflowConfig } from '@/lib/api/workflows/get-workflow-config';
import { appCallMode } from '@/lib/app-endpoint';
import { useAuth } from '@/lib/auth/use-auth';
import { AppDetails } from '../components/app-details';
import { AppPicker } from '../components/app-picker';
import { AuthRequiredNotice } from '../components/auth-required-notice';
import { ChatTester } from '../components/chat-tester';
import { CompletionTester } from '../components/completion-tester';
import { InputFieldsForm } from '../components/input-fields-form';
import { OpenAIExample } from '../components/openai-example';
import { useConsoleApp } from '../hooks/use-console-app';
import { useDebouncedValue } from '../hooks/use-debounced-value';
import { catalogInputFields, consoleInputs, schemaInputFields, workflowMode } from '../lib/console-inputs';
import type { InputField } from '../lib/input-fields';
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
  // The owner reads the inputs from the app's configuration, whatever its status.
  const canReadSchema = signedIn && app.data?.is_owner === true && app.data.type === 'prompt';
  const promptConfig = usePromptConfig(detailsSlug, { enabled: canReadSchema });
  // A workflow app's inputs are its Dify app's input form.
  const canReadWorkflow = signedIn && app.data?.is_owner === true && app.data.type === 'workflow';
  const workflowConfig = useWorkflowConfig(detailsSlug, { enabled: canReadWorkflow });
  // Anyone else (signed in or not) reads the inputs of an app they may call: live public or embed (issue 25).
  // The owner reads it too, for whether the demo model answers the app.
  const publicApp = useAppInputs(detailsSlug, { enabled: app.data !== undefined });
  const { download, isDownloading } = useDownloadApp();

  let fields: InputField[] | null = null;
  let mode: 'completion' | 'chat' = app.data ? appCallMode(app.data) : 'completion';
  if (canReadSchema && promptConfig.data) fields = schemaInputFields(promptConfig.data.active_version.input_schema);
  else if (canReadWorkflow && workflowConfig.data) {
    fields = workflowInputFields(workflowConfig.data);
    mode = workflowMode(workflowConfig.data) ?? mode;
  } else if (publicApp.data && app.data?.slug === detailsSlug) {
    fields = catalogInputFields(publicApp.data.fields);
    mode = publicApp.data.mode;
  }
  const inputs = consoleInputs(fields, mode);

  // Values typed for one app mean nothing to the next (reset while rendering, React's pattern for derived state).
  const [valuesFor, setValuesFor] = useState(slug.trim());
  if (valuesFor !== slug.trim()) {
    setValuesFor(slug.trim());
    setFieldValues({});
  }

  // Anonymous visitors can only call with a key: the Test buttons say so instead of failing with 401.
  const needsKey = status === 'unauthenticated' && apiKey.trim() === '';
  const testerProps = { slug, apiKey, stream, inputs, fieldValues, needsKey };
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
        <AppDetails
          app={app.data}
          isLoading={app.isLoading}
          error={app.error}
          demoModel={publicApp.data?.demo_model === true && app.data?.slug === detailsSlug}
          // Anyone signed in who may call the app downloads its front end (it runs on their own key).
          download={signedIn && app.data ? { onClick: () => app.data && void download(app.data), running: isDownloading(app.data.slug) } : undefined}
        />
        <InputFieldsForm
          fields={inputs.formFields}
          textInput={inputs.textInput}
          values={fieldValues}
          onChange={(name, value) => setFieldValues((current) => ({ ...current, [name]: value }))}
        />
        {/* Only the mode the app answers in (issue 61: a completion app offered Test Chat, which it refuses); both before an app is found.
            Each tester keeps its place among the children, so one typed into while the app loads is not remounted. */}
        <div className={`grid grid-cols-1 gap-6 ${app.data ? '' : 'lg:grid-cols-2'}`}>
          {!app.data || mode === 'completion' ? <CompletionTester {...testerProps} /> : null}
          {!app.data || mode === 'chat' ? <ChatTester {...testerProps} /> : null}
        </div>
        {app.data ? <OpenAIExample slug={app.data.slug} mode={mode} inputs={inputs} values={fieldValues} /> : null}
      </div>
    </div>
  );
}
