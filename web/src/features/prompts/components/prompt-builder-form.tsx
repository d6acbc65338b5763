// The prompt builder (spec: Prompt builder): four tabs over one local draft, saved through the API.
// Create mode posts the application and then its prompt configuration; edit mode patches both.
// Test Prompt runs the unsaved draft (template, settings, schemas) against the model and never
// saves: nothing is created or changed until Save.
import { declareTemplateVariables, detectVariables, type PromptTestResult, type RateCard, rateCardSummary } from '@tollbooth/contract';
import { useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { isPlainPerCall } from '@/components/pricing/price-form.utils';
import { DemoModelNotice } from '@/components/ui/demo-model-notice';
import { FormAlert } from '@/components/ui/form-alert';
import { primaryButton, secondaryButton } from '@/components/ui/styles';
import { type TabItem, Tabs } from '@/components/ui/tabs';
import { ApiError, getErrorMessage } from '@/lib/errors';
import { dollarsToCents } from '@/lib/price';
import { useSavePromptApp } from '../api/save-prompt-app';
import { useTestUnsavedPromptConfig } from '../api/test-prompt-config';
import { costInputsOfDraft } from '../lib/model-cost.utils';
import {
  buildModelSettings,
  buildOutputSchema,
  PROMPT_NAME_REQUIRED,
  type PromptDraft,
  SAVE_FAILED_MESSAGE,
  SYSTEM_PROMPT_REQUIRED,
  TEMPLATE_REQUIRED,
  validateDraft,
} from '../lib/prompt-builder.utils';
import { buildSchema } from '../lib/schema-fields.utils';
import type { DeclaredField } from '../lib/template-variables';
import { buildTestInputs } from '../lib/test-inputs';
import { BuilderBasicInfo } from './builder-basic-info';
import { BuilderModelSettings } from './builder-model-settings';
import { BuilderPreviewTest } from './builder-preview-test';
import { BuilderSchemaTab } from './builder-schema-tab';
import { ModelCostPanel, useMarginGuard, useModelCost } from './model-cost-panel';

type BuilderTab = 'basic' | 'schema' | 'model' | 'preview';

const DRAFT_RULES: ReadonlySet<string> = new Set([PROMPT_NAME_REQUIRED, SYSTEM_PROMPT_REQUIRED, TEMPLATE_REQUIRED]);

interface PromptBuilderFormProps {
  mode: 'create' | 'edit';
  initialDraft: PromptDraft;
  /** Edit mode: the application's slug. */
  slug?: string;
  /** Edit mode: the saved name, for the header. */
  savedName?: string;
  /** Edit mode: the app's rate card (issue 60); one other than whole cents per call is kept unless the price is changed here. */
  card?: RateCard | null;
}

/** A failed save: the server's own words when it answered, else the spec's generic message. */
function saveErrorMessage(error: unknown): string {
  return error instanceof ApiError && error.status !== 401 ? getErrorMessage(error) : SAVE_FAILED_MESSAGE;
}

export function PromptBuilderForm({ mode, initialDraft, slug, savedName, card = null }: PromptBuilderFormProps) {
  const navigate = useNavigate();
  const [draft, setDraft] = useState(initialDraft);
  const [tab, setTab] = useState<BuilderTab>('basic');
  const [error, setError] = useState<string | null>(null);
  const [savedSlug, setSavedSlug] = useState<string | null>(slug ?? null);
  const [testTexts, setTestTexts] = useState<Record<string, string>>({});
  const [testResult, setTestResult] = useState<PromptTestResult | null>(null);
  const [testError, setTestError] = useState<string | null>(null);
  const [lastPublish, setLastPublish] = useState(false);
  const savePrompt = useSavePromptApp();
  const testPrompt = useTestUnsavedPromptConfig();

  // Every {{variable}} is a declared input: one no field declares is a required text input, as the
  // server saves it, so the test, the curl example and the fields shown agree with real calls.
  const inputSchema = useMemo(
    () => declareTemplateVariables(draft.user_prompt_template, buildSchema(draft.input_fields)),
    [draft.user_prompt_template, draft.input_fields],
  );
  const declaredFields = useMemo<DeclaredField[]>(
    () =>
      Object.entries(inputSchema.properties).map(([name, property]) => ({
        name,
        type: property.type,
        description: property.description ?? '',
        required: inputSchema.required?.includes(name) ?? false,
      })),
    [inputSchema],
  );
  const variables = useMemo(() => detectVariables(draft.user_prompt_template), [draft.user_prompt_template]);
  const busy = savePrompt.isPending || testPrompt.isPending;
  const costInputs = costInputsOfDraft(draft, savedSlug);
  const margin = useMarginGuard(useModelCost(costInputs).data);
  // A save rule's message goes away as soon as the draft no longer breaks that rule (the field was filled).
  const shownError = error !== null && DRAFT_RULES.has(error) && validateDraft(draft) !== error ? null : error;

  /** Checks the spec's save rules; shows the first problem on the Basic Info tab. */
  function checkDraft(candidate: PromptDraft): boolean {
    const problem = validateDraft(candidate);
    setError(problem);
    if (problem) setTab('basic');
    return problem === null;
  }

  function save(publish: boolean) {
    if (busy) return;
    setLastPublish(publish);
    const next: PromptDraft = publish ? { ...draft, status: 'live' } : draft;
    if (publish) setDraft(next);
    if (!checkDraft(next)) return;
    // On its own key the platform posts no model cost: nothing to warn about.
    const ownKey = next.key_source === 'own';
    const priceCents = dollarsToCents(next.price);
    // A per-token or cost-plus card left alone here is kept, and weighed by the cost panel rather than as a price per call.
    const keepCard = !isPlainPerCall(card) && next.price === initialDraft.price;
    const publishing = next.status === 'live' && initialDraft.status !== 'live';
    if (
      !keepCard &&
      !margin.allowSave(priceCents, next.status === 'live' && !ownKey, publishing, savedSlug === null || priceCents !== dollarsToCents(initialDraft.price))
    )
      return;
    savePrompt.mutate(
      { draft: next, savedSlug, onCreated: (app) => setSavedSlug(app.slug), keepCard },
      {
        onSuccess: () => navigate('/applications'),
        onError: (caught) => setError(saveErrorMessage(caught)),
      },
    );
  }

  async function runTest() {
    if (busy) return;
    setTestError(null);
    setTestResult(null);
    if (!draft.user_prompt_template.trim()) {
      setTestError(TEMPLATE_REQUIRED);
      return;
    }
    try {
      const result = await testPrompt.mutateAsync({
        prompt_template: draft.user_prompt_template,
        system_prompt: draft.system_prompt,
        ...buildModelSettings(draft),
        input_schema: inputSchema,
        output_schema: buildOutputSchema(draft),
        test_inputs: buildTestInputs(testTexts, variables, inputSchema),
        run: true,
      });
      setTestResult(result);
    } catch (caught) {
      setTestError(`Test failed: ${getErrorMessage(caught)}`);
    }
  }

  const tabs: TabItem<BuilderTab>[] = [
    {
      id: 'basic',
      label: 'Basic Info',
      content: (
        <BuilderBasicInfo
          draft={draft}
          onChange={setDraft}
          savedSlug={savedSlug}
          fields={declaredFields}
          priceNote={
            card && !isPlainPerCall(card)
              ? `Priced ${rateCardSummary(card)}: kept unless you change this price, which sets a price per call instead.`
              : undefined
          }
        />
      ),
    },
    { id: 'schema', label: 'Input/Output Schema', content: <BuilderSchemaTab draft={draft} onChange={setDraft} /> },
    { id: 'model', label: 'Model Settings', content: <BuilderModelSettings draft={draft} onChange={setDraft} /> },
    {
      id: 'preview',
      label: 'Preview & Test',
      content: (
        <BuilderPreviewTest
          draft={draft}
          inputSchema={inputSchema}
          variables={variables}
          testTexts={testTexts}
          onTestTextsChange={setTestTexts}
          onTest={() => void runTest()}
          testing={busy}
          result={testResult}
          testError={testError}
          slug={savedSlug ?? draft.slug}
          saved={savedSlug !== null}
        />
      ),
    },
  ];

  const saveLabel = mode === 'create' ? 'Save Draft' : 'Update Prompt';

  return (
    <div className="mx-auto max-w-5xl px-4 py-8 sm:px-6 lg:px-8">
      <h1 className="text-2xl font-bold tracking-tight break-words text-gray-900 sm:text-3xl">
        {mode === 'create' ? 'Create New Prompt' : `Edit: ${savedName ?? draft.name}`}
      </h1>
      <p className="mt-1 text-sm text-gray-600">Write the prompt, declare its inputs, pick the model, then test and publish it as a paid API endpoint.</p>

      <FormAlert message={shownError} className="mt-6" />

      {margin.warning ? (
        <div role="alert" data-testid="margin-warning" className="mt-6 rounded-md bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-300">
          <p>{margin.warning}</p>
          <button type="button" className={`${secondaryButton} mt-2`} onClick={() => save(lastPublish)} disabled={busy}>
            {lastPublish ? 'Publish at this price' : 'Save at this price'}
          </button>
        </div>
      ) : null}

      {/* An app on its own key never answers from the demo model. */}
      <DemoModelNotice model={draft.key_source === 'own' ? null : draft.model} className="mt-6" />

      <div className="mt-6 rounded-lg bg-white p-6 shadow-sm ring-1 ring-gray-200">
        <Tabs label="Prompt builder" tabs={tabs} selected={tab} onSelect={setTab} />
      </div>

      {/* On every step (issue 61): the worst case follows the template, its variables and max_tokens as they change. */}
      <ModelCostPanel
        className="mt-6"
        inputs={costInputs}
        priceCents={dollarsToCents(draft.price)}
        card={card && !isPlainPerCall(card) && draft.price === initialDraft.price ? card : undefined}
        ownKey={draft.key_source === 'own'}
      />

      <div className="mt-6 flex flex-wrap justify-end gap-3">
        <Link to="/applications" className={secondaryButton}>
          Cancel
        </Link>
        {draft.status === 'draft' ? (
          <button type="button" className={secondaryButton} onClick={() => save(true)} disabled={busy}>
            Save &amp; Publish
          </button>
        ) : null}
        <button type="button" className={primaryButton} onClick={() => save(false)} disabled={busy}>
          {savePrompt.isPending ? 'Saving...' : saveLabel}
        </button>
      </div>
    </div>
  );
}
