// /workflows/{slug}: the workflow app's settings and its provider configuration, edited together
// and saved with Save Changes (PATCH the application, then the workflow configuration), plus the
// app's input form as the provider reports it and the version history with rollback.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Application, WorkflowConfig, WorkflowProviderInfo } from '@tollbooth/contract';
import { useState } from 'react';
import { useParams } from 'react-router';
import { BasicSettingsTab, DetailHeader, DetailLoadError, detailPageClass, SaveOutcome } from '@/components/app-detail/detail-page';
import { testRunProps, useTestRun } from '@/components/app-detail/use-test-run';
import { versionHistoryProps } from '@/components/app-detail/version-history';
import { ConfirmPriceButton } from '@/components/pricing/confirm-price-button';
import { useHighPriceGuard } from '@/components/pricing/high-price-guard';
import { isPlainPerCall } from '@/components/pricing/price-form.utils';
import { StatusBadge, TypeBadge, VisibilityBadge } from '@/components/ui/badges';
import { PageSpinner } from '@/components/ui/spinner';
import { Tabs } from '@/components/ui/tabs';
import { appKeys } from '@/lib/api/apps/app-keys';
import { useApp } from '@/lib/api/apps/get-app';
import { updateApp } from '@/lib/api/apps/update-app';
import { workflowKeys } from '@/lib/api/workflows/workflow-keys';
import { ApiError, getErrorMessage, isUnauthorizedError } from '@/lib/errors';
import { formatPrice } from '@/lib/price';
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
  parsePrice,
  settingsValuesOf,
  WORKFLOW_NOT_FOUND_MESSAGE,
  type WorkflowBasicValues,
  type WorkflowSettingsValues,
} from '../lib/workflow-detail.utils';

type DetailTab = 'basic' | 'provider' | 'versions';

function useSaveWorkflowDetail(slug: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({
      basic,
      settings,
      saved,
      provider,
      keepCard,
    }: {
      keepCard: boolean;
      basic: WorkflowBasicValues;
      settings: WorkflowSettingsValues;
      saved: WorkflowConfig;
      provider: WorkflowProviderInfo | null;
    }) => {
      // A card priced other than whole cents per call is not in this form (the application page's Edit changes it): its price_cents is not sent back over it.
      const { price_cents, ...rest } = buildWorkflowAppBody(basic);
      const app = await updateApp({ slug, changes: keepCard ? rest : { ...rest, price_cents } });
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
  const save = useSaveWorkflowDetail(app.slug);
  const test = useTestRun(useTestWorkflowConfig());
  const versions = useWorkflowVersions(app.slug);
  const rollback = useRollbackWorkflow(app.slug);
  const provider = providers.find((candidate) => candidate.id === settings.provider) ?? null;
  const saveError = save.error && !isUnauthorizedError(save.error) ? getErrorMessage(save.error) : null;

  const highPrice = useHighPriceGuard();
  // Whole cents per call: the price field edits it; any other card shows read-only (issue 60).
  const plainPrice = isPlainPerCall(app.pricing);

  /** `confirmedCents`: the price the high-price warning's button confirmed. */
  function saveChanges(confirmedCents: number | null = null) {
    if (save.isPending) return;
    setSaved(false);
    const priceCents = parsePrice(basic.price);
    // A Dify workflow's model cost is the creator's Dify bill, unknown here: a price above $1.00 asks (an unchanged one was asked when set).
    if (plainPrice && priceCents !== app.price_cents && !highPrice.allow(priceCents, null, confirmedCents)) return;
    save.mutate(
      { basic, settings, saved: config, provider, keepCard: !plainPrice },
      {
        onSuccess: ({ config: next }) => {
          setSaved(true);
          setSettings(settingsValuesOf(next));
        },
      },
    );
  }

  function runTest() {
    test.run({ slug: app.slug, body: { provider: settings.provider || undefined, provider_config: settings.provider_config } });
  }

  function rollBack(version: number) {
    rollback.mutate(version, {
      onSuccess: async () => {
        setSettings(settingsValuesOf(await getWorkflowConfig(app.slug)));
        test.clearResult();
      },
    });
  }

  return (
    <div className={detailPageClass}>
      <DetailHeader
        app={app}
        kind="workflow"
        listPath="/workflows"
        onSave={() => saveChanges()}
        saving={save.isPending}
        badges={
          <>
            <TypeBadge type={app.type} />
            {config.app_info ? (
              <span className="inline-flex items-center rounded-full bg-purple-100 px-2.5 py-0.5 text-xs font-medium text-purple-800">
                {describeMode(config.app_info.mode)}
              </span>
            ) : null}
            <StatusBadge status={app.status} />
            <VisibilityBadge visibility={app.visibility} />
          </>
        }
      />

      <SaveOutcome
        warning={highPrice.warning}
        warningAction={
          <ConfirmPriceButton label={`Save at ${formatPrice(highPrice.warnedPriceCents)} per call`} onConfirm={() => saveChanges(highPrice.warnedPriceCents)} />
        }
        error={saveError}
        saved={saved && !save.isPending}
      />

      <div className="mt-6 rounded-lg bg-white p-6 shadow-sm ring-1 ring-gray-200">
        <Tabs
          label="Workflow settings"
          selected={tab}
          onSelect={setTab}
          tabs={[
            {
              id: 'basic',
              label: 'Basic Settings',
              content: (
                <BasicSettingsTab app={app} form={(pricePanel) => <WorkflowBasicSettings values={basic} onChange={setBasic} pricePanel={pricePanel} />} />
              ),
            },
            {
              id: 'provider',
              label: 'Provider Config',
              content: (
                <WorkflowProviderConfig
                  providers={providers}
                  values={settings}
                  onChange={setSettings}
                  {...testRunProps(test, runTest)}
                  appInfo={config.app_info}
                />
              ),
            },
            {
              id: 'versions',
              label: 'Version History',
              content: (
                <WorkflowVersionHistory
                  {...versionHistoryProps(
                    versions,
                    rollback,
                    rollBack,
                    rollback.error && !isUnauthorizedError(rollback.error) ? getErrorMessage(rollback.error) : null,
                  )}
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
    return <DetailLoadError message={notFound ? WORKFLOW_NOT_FOUND_MESSAGE : getErrorMessage(failure)} listPath="/workflows" />;
  }
  return <PageSpinner message="Loading workflow..." />;
}
