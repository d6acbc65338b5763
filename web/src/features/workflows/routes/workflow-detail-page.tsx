// /workflows/{slug}: the workflow app's settings and its provider configuration, edited together
// and saved with Save Changes (PATCH the application, then the workflow configuration), plus the
// app's input form as the provider reports it and the version history with rollback.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Application, WorkflowConfig, WorkflowProviderInfo, WorkflowTestResult } from '@tollbooth/contract';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { StatusBadge, TypeBadge, VisibilityBadge } from '@/components/ui/badges';
import { DownloadButton } from '@/components/ui/download-button';
import { ErrorBox } from '@/components/ui/error-box';
import { PageSpinner } from '@/components/ui/spinner';
import { primaryButton, secondaryButton, textLink } from '@/components/ui/styles';
import { Tabs } from '@/components/ui/tabs';
import { appKeys } from '@/lib/api/apps/app-keys';
import { useDownloadApp } from '@/lib/api/apps/download-app-frontend';
import { useApp } from '@/lib/api/apps/get-app';
import { updateApp } from '@/lib/api/apps/update-app';
import { workflowKeys } from '@/lib/api/workflows/workflow-keys';
import { ApiError, getErrorMessage, isUnauthorizedError } from '@/lib/errors';
import {
  getWorkflowConfig,
  updateWorkflowConfig,
  useRollbackWorkflow,
  useTestWorkflowConfig,
  useWorkflowConfig,
  useWorkflowProviders,
  useWorkflowVersions,
} from '../api/workflow-api';
import { WorkflowBasicSettings } from '../components/workflow-basic-settings';
import { WorkflowProviderConfig } from '../components/workflow-provider-config';
import { WorkflowVersionHistory } from '../components/workflow-version-history';
import {
  basicValuesOf,
  buildWorkflowAppBody,
  buildWorkflowConfigBody,
  describeMode,
  settingsValuesOf,
  WORKFLOW_NOT_FOUND_MESSAGE,
  type WorkflowBasicValues,
  type WorkflowSettingsValues,
} from '../lib/workflow-detail.utils';

const pageClass = 'mx-auto max-w-6xl px-4 py-8 sm:px-6 lg:px-8';

type DetailTab = 'basic' | 'provider' | 'versions';

function useSaveWorkflowDetail(slug: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({
      basic,
      settings,
      saved,
      provider,
    }: {
      basic: WorkflowBasicValues;
      settings: WorkflowSettingsValues;
      saved: WorkflowConfig;
      provider: WorkflowProviderInfo | null;
    }) => {
      const app = await updateApp({ slug, changes: buildWorkflowAppBody(basic) });
      const config = await updateWorkflowConfig(slug, buildWorkflowConfigBody(settings, saved, provider));
      return { app, config };
    },
    onSuccess: async ({ app, config }) => {
      queryClient.setQueryData(appKeys.detail(app.slug), app);
      queryClient.setQueryData(workflowKeys.config(app.slug), config);
      await queryClient.invalidateQueries({ queryKey: workflowKeys.versions(app.slug) });
      await queryClient.invalidateQueries({ queryKey: appKeys.lists() });
    },
  });
}

function WorkflowDetail({ app, config, providers }: { app: Application; config: WorkflowConfig; providers: WorkflowProviderInfo[] }) {
  const [tab, setTab] = useState<DetailTab>('basic');
  const [basic, setBasic] = useState(() => basicValuesOf(app));
  const [settings, setSettings] = useState(() => settingsValuesOf(config));
  const [saved, setSaved] = useState(false);
  const [testResult, setTestResult] = useState<WorkflowTestResult | null>(null);
  const [testError, setTestError] = useState<string | null>(null);
  const { download, isDownloading } = useDownloadApp();
  const save = useSaveWorkflowDetail(app.slug);
  const test = useTestWorkflowConfig();
  const versions = useWorkflowVersions(app.slug);
  const rollback = useRollbackWorkflow(app.slug);
  const provider = providers.find((candidate) => candidate.id === settings.provider) ?? null;
  const saveError = save.error && !isUnauthorizedError(save.error) ? getErrorMessage(save.error) : null;

  function saveChanges() {
    if (save.isPending) return;
    setSaved(false);
    save.mutate(
      { basic, settings, saved: config, provider },
      {
        onSuccess: ({ config: next }) => {
          setSaved(true);
          setSettings(settingsValuesOf(next));
        },
      },
    );
  }

  function runTest() {
    if (test.isPending) return;
    setTestError(null);
    setTestResult(null);
    test.mutate(
      { slug: app.slug, body: { provider: settings.provider || undefined, provider_config: settings.provider_config } },
      { onSuccess: setTestResult, onError: (caught) => setTestError(`Test failed: ${getErrorMessage(caught)}`) },
    );
  }

  function rollBack(version: number) {
    rollback.mutate(version, {
      onSuccess: async () => {
        setSettings(settingsValuesOf(await getWorkflowConfig(app.slug)));
        setTestResult(null);
      },
    });
  }

  return (
    <div className={pageClass}>
      <div className="flex flex-col gap-4 lg:flex-row lg:items-start lg:justify-between">
        <div className="min-w-0">
          <h1 className="text-2xl font-bold tracking-tight break-words text-gray-900 sm:text-3xl">{app.name}</h1>
          <p className="mt-1 font-mono text-sm text-gray-500" data-testid="workflow-slug">
            {app.slug}
          </p>
          {app.description ? <p className="mt-2 max-w-3xl text-gray-700">{app.description}</p> : null}
          <div className="mt-3 flex flex-wrap gap-2" data-testid="workflow-badges">
            <TypeBadge type={app.type} />
            {config.app_info ? (
              <span className="inline-flex items-center rounded-full bg-purple-100 px-2.5 py-0.5 text-xs font-medium text-purple-800">
                {describeMode(config.app_info.mode)}
              </span>
            ) : null}
            <StatusBadge status={app.status} />
            <VisibilityBadge visibility={app.visibility} />
          </div>
        </div>
        <div className="flex shrink-0 flex-wrap gap-3">
          <Link to="/workflows" className={secondaryButton}>
            Back to List
          </Link>
          <DownloadButton label="Download App" busy={isDownloading(app.slug)} onClick={() => void download(app)} className={secondaryButton} />
          <button type="button" className={primaryButton} onClick={saveChanges} disabled={save.isPending}>
            {save.isPending ? 'Saving...' : 'Save Changes'}
          </button>
        </div>
      </div>

      <div aria-live="polite" className="mt-4">
        {saveError ? (
          <p role="alert" className="rounded-md bg-red-50 p-3 text-sm text-red-700 ring-1 ring-red-200">
            {saveError}
          </p>
        ) : null}
        {saved && !save.isPending ? <p className="rounded-md bg-green-50 p-3 text-sm text-green-800 ring-1 ring-green-200">Changes saved</p> : null}
      </div>

      <div className="mt-6 rounded-lg bg-white p-6 shadow-sm ring-1 ring-gray-200">
        <Tabs
          label="Workflow settings"
          selected={tab}
          onSelect={setTab}
          tabs={[
            { id: 'basic', label: 'Basic Settings', content: <WorkflowBasicSettings values={basic} onChange={setBasic} /> },
            {
              id: 'provider',
              label: 'Provider Config',
              content: (
                <WorkflowProviderConfig
                  providers={providers}
                  values={settings}
                  onChange={setSettings}
                  onTest={runTest}
                  testing={test.isPending}
                  result={testResult}
                  testError={testError}
                  appInfo={config.app_info}
                />
              ),
            },
            {
              id: 'versions',
              label: 'Version History',
              content: (
                <WorkflowVersionHistory
                  versions={versions.data}
                  loading={versions.isPending}
                  onRollback={rollBack}
                  rollingBack={rollback.isPending ? (rollback.variables ?? null) : null}
                  error={rollback.error && !isUnauthorizedError(rollback.error) ? getErrorMessage(rollback.error) : null}
                />
              ),
            },
          ]}
        />
      </div>
    </div>
  );
}

export function WorkflowDetailPage() {
  const { slug = '' } = useParams();
  const app = useApp(slug);
  const isWorkflow = app.data?.type === 'workflow';
  const config = useWorkflowConfig(slug, { enabled: isWorkflow });
  const providers = useWorkflowProviders();

  const failure = app.error ?? config.error ?? providers.error;
  const notFound = (failure instanceof ApiError && failure.status === 404) || (app.data !== undefined && !isWorkflow);
  if (app.data && config.data && providers.data && !notFound) {
    return <WorkflowDetail key={app.data.slug} app={app.data} config={config.data} providers={providers.data} />;
  }
  if (failure || notFound) {
    // A 401 is only logged (by the API client), never shown as a page error.
    if (isUnauthorizedError(failure)) return null;
    return (
      <div className={pageClass}>
        <ErrorBox title="Error" message={notFound ? WORKFLOW_NOT_FOUND_MESSAGE : getErrorMessage(failure)}>
          <Link to="/workflows" className={`${textLink} mt-3 inline-block text-sm`}>
            Back to List
          </Link>
        </ErrorBox>
      </div>
    );
  }
  return <PageSpinner message="Loading workflow..." />;
}
