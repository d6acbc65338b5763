// /prompts/{slug}: the prompt app's settings and its prompt configuration, edited together and
// saved with Save Changes (PATCH the configuration, then the application).

import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Application, PromptConfig } from '@tollbooth/contract';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { BasicSettingsTab, DetailHeader, DetailLoadError, detailPageClass, SaveOutcome } from '@/components/app-detail/detail-page';
import { testRunProps, useTestRun } from '@/components/app-detail/use-test-run';
import { versionHistoryProps } from '@/components/app-detail/version-history';
import { ConfirmPriceButton } from '@/components/pricing/confirm-price-button';
import { isPlainPerCall } from '@/components/pricing/price-form.utils';
import { PriceNotice } from '@/components/pricing/price-notice';
import { cardOfApp } from '@/components/pricing/rate-card-panel';
import { ModeBadge, StatusBadge, TypeBadge, VisibilityBadge } from '@/components/ui/badges';
import { PageSpinner } from '@/components/ui/spinner';
import { textLink } from '@/components/ui/styles';
import { Tabs } from '@/components/ui/tabs';
import { appKeys } from '@/lib/api/apps/app-keys';
import { useApp } from '@/lib/api/apps/get-app';
import { updateApp } from '@/lib/api/apps/update-app';
import { usePromptConfig } from '@/lib/api/prompts/get-prompt-config';
import { promptKeys } from '@/lib/api/prompts/prompt-keys';
import { ApiError, getErrorMessage, isUnauthorizedError } from '@/lib/errors';
import { dollarsToCents } from '@/lib/price';
import { promptVersionsKey, useActivatePromptVersion, usePromptVersions } from '../api/prompt-versions';
import { useTestPromptConfig } from '../api/test-prompt-config';
import { updatePromptConfig } from '../api/update-prompt-config';
import { DetailBasicSettings } from '../components/detail-basic-settings';
import { DetailPromptConfig } from '../components/detail-prompt-config';
import { ModelCostPanel, useMarginGuard, useModelCost } from '../components/model-cost-panel';
import { PromptVersionHistory } from '../components/prompt-version-history';
import { costInputsOfDetail } from '../lib/model-cost.utils';
import {
  basicValuesOf,
  buildDetailAppBody,
  buildDetailConfigBody,
  configValuesOf,
  type DetailBasicValues,
  type DetailConfigValues,
  detailModelSettings,
  detailTestInputs,
  PROMPT_NOT_FOUND_MESSAGE,
} from '../lib/prompt-detail.utils';

type DetailTab = 'basic' | 'config' | 'versions';

function useSavePromptDetail(slug: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ basic, config, keepCard }: { basic: DetailBasicValues; config: DetailConfigValues; keepCard: boolean }) => {
      // The configuration first: it is what the server may refuse (a template that cannot render, a
      // bad schema), and a refused save must leave the Basic Settings unsaved too, not half a save.
      const savedConfig = await updatePromptConfig(slug, buildDetailConfigBody(config));
      // A card priced other than whole cents per call is not in this form (the application page's Edit changes it): its price_cents is not sent back over it.
      const { price_cents, ...rest } = buildDetailAppBody(basic);
      const app = await updateApp({ slug, changes: keepCard ? rest : { ...rest, price_cents } });
      return { app, config: savedConfig };
    },
    onSuccess: async ({ app, config }) => {
      queryClient.setQueryData(appKeys.detail(app.slug), app);
      queryClient.setQueryData(promptKeys.config(app.slug), config);
      await queryClient.invalidateQueries({ queryKey: promptVersionsKey(app.slug) });
      await queryClient.invalidateQueries({ queryKey: appKeys.lists() });
    },
  });
}

function PromptDetail({ app, config }: { app: Application; config: PromptConfig }) {
  const [tab, setTab] = useState<DetailTab>('basic');
  const [basic, setBasic] = useState(() => basicValuesOf(app));
  const [configValues, setConfigValues] = useState(() => configValuesOf(config));
  const [saved, setSaved] = useState(false);
  const save = useSavePromptDetail(app.slug);
  const test = useTestRun(useTestPromptConfig());
  const versions = usePromptVersions(app.slug, { enabled: tab === 'versions' });
  const activate = useActivatePromptVersion(app.slug);
  const [rollbackError, setRollbackError] = useState<string | null>(null);

  const saveError = save.error && !isUnauthorizedError(save.error) ? getErrorMessage(save.error) : null;
  const costInputs = costInputsOfDetail(configValues, config.system_prompt, app.slug);
  const margin = useMarginGuard(useModelCost(costInputs).data);
  // Whole cents per call: the price field edits it; any other card shows read-only (issue 60).
  const plainPrice = isPlainPerCall(app.pricing);

  function saveChanges() {
    if (save.isPending) return;
    setSaved(false);
    const live = basic.status === 'live' && configValues.key_source !== 'own';
    const priceCents = dollarsToCents(basic.price);
    // A card priced per token or cost plus is weighed by the cost panel, not as a price per call.
    if (plainPrice && !margin.allowSave(priceCents, live, live && app.status !== 'live', priceCents !== app.price_cents)) return;
    save.mutate(
      { basic, config: configValues, keepCard: !plainPrice },
      {
        onSuccess: () => {
          setSaved(true);
          // A test result describes the template as it was tested; after a save it would only mislead.
          test.clear();
        },
      },
    );
  }

  function rollback(version: number) {
    if (activate.isPending) return;
    setRollbackError(null);
    activate.mutate(version, {
      // The form shows the version now active, so a following Save Changes keeps it.
      onSuccess: (activated) => setConfigValues(configValuesOf(activated)),
      onError: (caught) => setRollbackError(isUnauthorizedError(caught) ? null : `Rollback failed: ${getErrorMessage(caught)}`),
    });
  }

  function runTest() {
    test.run({
      slug: app.slug,
      body: {
        prompt_template: configValues.prompt_template,
        ...detailModelSettings(configValues),
        // The unsaved schemas: a test never needs a save first.
        input_schema: configValues.input_schema,
        output_schema: configValues.output_schema,
        test_inputs: detailTestInputs(configValues.prompt_template, configValues.input_schema),
      },
    });
  }

  return (
    <div className={detailPageClass}>
      <DetailHeader
        app={app}
        kind="prompt"
        listPath="/prompts"
        onSave={saveChanges}
        saving={save.isPending}
        badges={
          <>
            <TypeBadge type={app.type} />
            <ModeBadge mode={app.interaction_mode} />
            <StatusBadge status={app.status} />
            <VisibilityBadge visibility={app.visibility} />
          </>
        }
      >
        <Link to={`/applications/${app.slug}/edit`} className={`${textLink} mt-3 inline-block text-sm`}>
          Open in Prompt Builder
        </Link>
      </DetailHeader>

      <SaveOutcome
        warning={margin.warning}
        warningAction={<ConfirmPriceButton onConfirm={saveChanges} disabled={save.isPending} />}
        error={saveError}
        saved={saved && !save.isPending}
      >
        {saved && !save.isPending ? <PriceNotice app={app} /> : null}
      </SaveOutcome>

      <div className="mt-6 rounded-lg bg-white p-6 shadow-sm ring-1 ring-gray-200">
        <Tabs
          label="Prompt settings"
          selected={tab}
          onSelect={setTab}
          tabs={[
            {
              id: 'basic',
              label: 'Basic Settings',
              content: (
                <BasicSettingsTab app={app} form={(pricePanel) => <DetailBasicSettings values={basic} onChange={setBasic} pricePanel={pricePanel} />}>
                  <ModelCostPanel
                    inputs={costInputs}
                    priceCents={dollarsToCents(basic.price)}
                    card={plainPrice ? undefined : cardOfApp(app)}
                    ownKey={configValues.key_source === 'own'}
                    className="mt-6 max-w-3xl"
                  />
                </BasicSettingsTab>
              ),
            },
            {
              id: 'config',
              label: 'Prompt Config',
              content: <DetailPromptConfig values={configValues} onChange={setConfigValues} {...testRunProps(test, runTest)} />,
            },
            {
              id: 'versions',
              label: 'Version History',
              content: (
                <PromptVersionHistory
                  {...versionHistoryProps(
                    versions,
                    activate,
                    rollback,
                    rollbackError ?? (versions.error && !isUnauthorizedError(versions.error) ? getErrorMessage(versions.error) : null),
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

export function PromptDetailPage() {
  const { slug = '' } = useParams();
  const app = useApp(slug);
  const config = usePromptConfig(slug, { enabled: app.data?.type !== 'workflow' });

  const failure = app.error ?? config.error;
  const notFound = (failure instanceof ApiError && failure.status === 404) || app.data?.type === 'workflow';
  if (app.data && config.data && !notFound) return <PromptDetail key={app.data.slug} app={app.data} config={config.data} />;
  if (failure || notFound) {
    // A 401 is only logged (by the API client), never shown as a page error.
    if (isUnauthorizedError(failure)) return null;
    return <DetailLoadError message={notFound ? PROMPT_NOT_FOUND_MESSAGE : getErrorMessage(failure)} listPath="/prompts" />;
  }
  return <PageSpinner message="Loading prompt..." />;
}
