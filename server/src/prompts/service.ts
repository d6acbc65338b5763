// Prompt configuration: model settings plus numbered versions of the prompt text and schemas.
// Every change of template, system prompt or schemas creates a new version and activates it. The
// SQL is in queries.ts.
import {
  DEFAULT_INPUT_SCHEMA,
  DEFAULT_MODEL_SETTINGS,
  DEFAULT_SYSTEM_PROMPT,
  DEFAULT_TEMPLATE,
  declareTemplateVariables,
  dropUnusedAutoDeclared,
  findBraceProblem,
  findUnusableVariables,
  type IoSchema,
  type KeySource,
  type PromptConfig,
  type PromptConfigUpdate,
  type PromptTestRequest,
  type PromptTestResult,
  type PromptVersion,
  renderTemplate,
} from '@tollbooth/contract';
import type { Static } from 'typebox';
import type { TestRunBilling } from '../billing/test-runs-service.ts';
import type { Database, Queryable } from '../db/client.ts';
import { AppError, invalidParam } from '../platform/errors.ts';
import { linearRegExp } from '../platform/safe-regex.ts';
import { createAjv } from '../platform/validation.ts';
import { type ModelRouter, type OwnCredentials, type ResolvedModel, unpricedMessage } from '../providers/registry.ts';
import {
  type ConfigRow,
  copyPromptRows,
  insertFirstPromptConfig,
  insertNextPromptVersion,
  selectActivePromptConfig,
  selectPromptConfig,
  selectPromptVersion,
  selectPromptVersions,
  updateActiveVersion,
  updateKeySource,
  updatePromptSettings,
  type VersionRow,
} from './queries.ts';
import { checkSchemaLimits } from './schema-limits.ts';
import { fillTestInputs, renderedMessage } from './test-inputs.ts';
import { runPromptTest } from './test-run.ts';

const toVersion = (row: VersionRow): PromptVersion => ({ ...row, created_at: row.created_at.toISOString() });

export const promptNotFound = () => new AppError('not_found', 'Prompt not found');

const schemaChecker = createAjv({ code: { regExp: linearRegExp } });

/** Checks a schema is of the spec's shape and compiles as JSON Schema; throws 400 naming the field. */
export function validateIoSchema(schema: IoSchema, field: string) {
  const names = Object.keys(schema.properties);
  for (const required of schema.required ?? []) {
    if (!names.includes(required)) throw invalidParam(`${field}.required`, `"${required}" is not one of the properties`);
  }
  for (const [name, property] of Object.entries(schema.properties)) {
    const where = `${field}.properties.${name}`;
    if (property.minLength !== undefined && property.maxLength !== undefined && property.minLength > property.maxLength) {
      throw invalidParam(`${where}.minLength`, 'must not exceed maxLength');
    }
    if (property.minimum !== undefined && property.maximum !== undefined && property.minimum > property.maximum) {
      throw invalidParam(`${where}.minimum`, 'must not exceed maximum');
    }
  }
  checkSchemaLimits(schema, field);
  try {
    schemaChecker.compile(schema);
  } catch (error) {
    throw invalidParam(field, `is not a valid JSON Schema: ${(error as Error).message}`);
  }
}

/** Refuses a template that cannot render (a stray "{{" or "}}"); throws 400 naming the field. */
export function validateTemplate(template: string, field: string) {
  const problem = findBraceProblem(template);
  if (problem) throw invalidParam(field, problem);
  validateVariableNames(template, field);
}

/** Refuses a {{variable}} no call could give a value ({{__proto__}}); throws 400 naming the field and the name. */
export function validateVariableNames(template: string, field: string) {
  const problem = findUnusableVariables(template);
  if (problem) throw invalidParam(field, problem);
}

/** JSON with object keys sorted, so two equal schemas compare equal whatever order the database keeps keys in. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

/** The configuration a test without a saved app starts from: the builder's defaults, no schemas. */
const UNSAVED_TEST_BASE = {
  ...DEFAULT_MODEL_SETTINGS,
  key_source: 'platform' as KeySource,
  system_prompt: '',
  input_schema: null as IoSchema | null,
  output_schema: null as IoSchema | null,
};

export async function createDefaultPromptConfig(tx: Queryable, appId: string) {
  await insertFirstPromptConfig(tx, appId, DEFAULT_MODEL_SETTINGS, {
    system_prompt: DEFAULT_SYSTEM_PROMPT,
    prompt_template: DEFAULT_TEMPLATE,
    input_schema: DEFAULT_INPUT_SCHEMA,
  });
}

/** Copies the configuration and the whole version history to a duplicated app. */
export async function copyPromptConfig(tx: Queryable, fromAppId: string, toAppId: string) {
  await copyPromptRows(tx, fromAppId, toAppId);
}

export function createPromptsService({
  db,
  models,
  testRuns,
  ownCredentials = async () => ({}),
  timeoutMs,
  onChange = () => {},
}: {
  db: Database;
  /** Test Prompt with run: true calls the model through these, waiting at most timeoutMs. */
  models: ModelRouter;
  /** Rate-limits test runs and charges their model cost to the tester (billing/test-runs-service.ts). */
  testRuns: TestRunBilling;
  /** A creator's own provider keys (bring your own key: profile/own-keys-service.ts). */
  ownCredentials?: (userId: string) => Promise<OwnCredentials>;
  timeoutMs: number;
  /** Told after an app's configuration changed. */
  onChange?: (appId: string) => void;
}) {
  const readConfig = async (q: Queryable, appId: string, forUpdate = false): Promise<ConfigRow> => {
    const config = await selectPromptConfig(q, appId, forUpdate);
    if (config) return config;
    // Prompt apps created before configurations existed get the defaults on first use.
    await createDefaultPromptConfig(q, appId);
    return (await selectPromptConfig(q, appId, forUpdate))!;
  };

  /** The model on the owner's own key; a 400 naming key_source when they have none for its provider. */
  const resolveOwn = async (model: string, ownerId: string): Promise<ResolvedModel> => {
    try {
      return models.resolveWith(model, await ownCredentials(ownerId));
    } catch (error) {
      if (error instanceof AppError && error.errorType === 'own_key_missing') {
        throw invalidParam('key_source', `${error.message}: add that key in your profile first, or use the platform's models`);
      }
      throw error;
    }
  };

  const toConfig = (config: ConfigRow, version: VersionRow): PromptConfig => ({
    model: config.model as PromptConfig['model'],
    key_source: config.key_source === 'own' ? 'own' : 'platform',
    temperature: config.temperature,
    max_tokens: config.max_tokens,
    top_p: config.top_p,
    frequency_penalty: config.frequency_penalty,
    presence_penalty: config.presence_penalty,
    system_prompt: version.system_prompt,
    active_version: toVersion(version),
  });

  const service = {
    /**
     * Renders a template with test inputs and reports its variables and problems; with run, also asks
     * the model. The request carries the unsaved configuration; whatever it leaves out comes from the
     * saved configuration (appId), or from the builder's defaults when there is no app yet (null).
     * Inputs follow a real call's rules (test-inputs.ts): a required input left blank is refused; an
     * optional one takes the schema's default, else an empty value. Nothing is saved.
     */
    async testConfig(appId: string | null, body: Static<typeof PromptTestRequest>, userId: string): Promise<PromptTestResult> {
      // The same checks as saving, so a test never runs a schema that could not be saved.
      if (body.input_schema) validateIoSchema(body.input_schema, 'input_schema');
      if (body.output_schema) validateIoSchema(body.output_schema, 'output_schema');
      validateVariableNames(body.prompt_template, 'prompt_template');
      const base = appId === null ? UNSAVED_TEST_BASE : await service.readPromptConfig(appId).then((saved) => ({ ...saved, ...saved.active_version }));
      const inputSchema = body.input_schema ?? base.input_schema;
      const filled = fillTestInputs(body.prompt_template, body.test_inputs ?? {}, inputSchema);
      const result = renderTemplate(body.prompt_template, filled.inputs);
      // A test passes only what a real call would take: a template that renders, with inputs the call accepts.
      const ok = result.ok && filled.refusal === null;
      const braceProblem = findBraceProblem(body.prompt_template);
      const rendered = {
        success: ok,
        message: ok ? renderedMessage(filled) : braceProblem ? 'Template has problems' : 'A real call would refuse these inputs',
        error: ok ? null : (braceProblem ?? filled.refusal ?? (result.ok ? null : result.error)),
        rendered_template: result.text,
        detected_variables: result.variables,
      };
      if (!body.run || !ok) return rendered;
      const model = body.model ?? base.model;
      // On the owner's own key (bring your own key) the test goes to their provider, never the platform's.
      const ownKey = (body.key_source ?? base.key_source) === 'own' && userId !== undefined;
      const resolved = ownKey ? await resolveOwn(model, userId) : undefined;
      try {
        const answer = await runPromptTest(models, testRuns, timeoutMs, {
          userId,
          appId,
          model,
          ...(resolved ? { resolved } : {}),
          systemPrompt: body.system_prompt ?? base.system_prompt,
          renderedTemplate: result.text,
          temperature: body.temperature ?? base.temperature,
          maxTokens: body.max_tokens ?? base.max_tokens,
          topP: body.top_p ?? base.top_p,
          frequencyPenalty: body.frequency_penalty ?? base.frequency_penalty,
          presencePenalty: body.presence_penalty ?? base.presence_penalty,
          outputSchema: body.output_schema === undefined ? base.output_schema : body.output_schema,
        });
        const message =
          filled.defaulted.length + filled.emptied.length === 0 ? 'Template rendered and the model answered' : `${rendered.message}; the model answered`;
        return { ...rendered, message, ...answer };
      } catch (error) {
        // Not being able to pay for the run (or running too many) is an answer of its own, not a model failure.
        if (error instanceof AppError && (error.code === 'insufficient_credits' || error.code === 'rate_limited')) throw error;
        return { ...rendered, success: false, message: 'The model call failed', error: (error as Error).message };
      }
    },

    /** The configuration with its active version in one round trip (the gateway's hot path). */
    async readActivePromptConfig(appId: string): Promise<PromptConfig> {
      const row = await selectActivePromptConfig(db, appId);
      if (!row) return this.readPromptConfig(appId);
      return toConfig(row, row);
    },

    async readPromptConfig(appId: string): Promise<PromptConfig> {
      return db.transaction(async (tx) => {
        const config = await readConfig(tx, appId);
        const version = await selectPromptVersion(tx, appId, config.active_version);
        if (!version) throw promptNotFound();
        return toConfig(config, version);
      });
    },

    /** ownerId: the app's owner, whose own key an app on 'own' keys must have for its model's provider. */
    async updatePromptConfig(appId: string, update: PromptConfigUpdate, ownerId?: string): Promise<PromptConfig> {
      // A model the operator's key serves but no price is known for could never answer (decision 0025).
      if (update.model !== undefined && update.key_source !== 'own' && models.unpricedModels().includes(update.model)) {
        throw invalidParam('model', unpricedMessage(update.model));
      }
      if (update.prompt_template !== undefined) validateTemplate(update.prompt_template, 'prompt_template');
      if (update.key_source === 'own' || update.model !== undefined) {
        const saved = update.key_source === undefined || update.model === undefined ? await selectPromptConfig(db, appId) : null;
        if ((update.key_source ?? saved?.key_source) === 'own') {
          if (ownerId === undefined) throw invalidParam('key_source', 'needs the app owner');
          await resolveOwn(update.model ?? saved?.model ?? DEFAULT_MODEL_SETTINGS.model, ownerId);
        }
      }
      if (update.input_schema) validateIoSchema(update.input_schema, 'input_schema');
      if (update.output_schema) validateIoSchema(update.output_schema, 'output_schema');
      const updated = await db.transaction(async (tx) => {
        const config = await readConfig(tx, appId, true);
        const active = await selectPromptVersion(tx, appId, config.active_version);
        if (!active) throw promptNotFound();
        const promptTemplate = update.prompt_template ?? active.prompt_template;
        const next = {
          system_prompt: update.system_prompt ?? active.system_prompt,
          prompt_template: promptTemplate,
          // Every {{variable}} is a declared input: one the schema leaves out is saved as a required text input.
          // A new template alone drops the inputs only the old template declared (issue 61).
          input_schema: declareTemplateVariables(
            promptTemplate,
            update.input_schema ?? (update.prompt_template !== undefined ? dropUnusedAutoDeclared(promptTemplate, active.input_schema) : active.input_schema),
          ),
          output_schema: update.output_schema === undefined ? active.output_schema : update.output_schema,
        };
        const changed =
          next.system_prompt !== active.system_prompt ||
          next.prompt_template !== active.prompt_template ||
          canonicalJson(next.input_schema) !== canonicalJson(active.input_schema) ||
          canonicalJson(next.output_schema) !== canonicalJson(active.output_schema);
        let activeVersion = config.active_version;
        if (changed) activeVersion = await insertNextPromptVersion(tx, appId, next, update.changelog ?? '');
        await updatePromptSettings(
          tx,
          appId,
          {
            model: update.model ?? config.model,
            temperature: update.temperature ?? config.temperature,
            max_tokens: update.max_tokens ?? config.max_tokens,
            top_p: update.top_p ?? config.top_p,
            frequency_penalty: update.frequency_penalty ?? config.frequency_penalty,
            presence_penalty: update.presence_penalty ?? config.presence_penalty,
          },
          activeVersion,
        );
        if (update.key_source !== undefined && update.key_source !== config.key_source) await updateKeySource(tx, appId, update.key_source);
        const config2 = await readConfig(tx, appId);
        return toConfig(config2, (await selectPromptVersion(tx, appId, activeVersion))!);
      });
      onChange(appId);
      return updated;
    },

    async listVersions(appId: string): Promise<{ active_version: number; versions: PromptVersion[] }> {
      const config = await db.transaction((tx) => readConfig(tx, appId));
      const versions = await selectPromptVersions(db, appId);
      return { active_version: config.active_version, versions: versions.map(toVersion) };
    },

    async activateVersion(appId: string, version: number): Promise<PromptConfig> {
      const activated = await db.transaction(async (tx) => {
        const config = await readConfig(tx, appId, true);
        const target = await selectPromptVersion(tx, appId, version);
        if (!target) throw new AppError('not_found', `Version ${version} not found`);
        await updateActiveVersion(tx, appId, version);
        return toConfig({ ...config, active_version: version }, target);
      });
      onChange(appId);
      return activated;
    },
  };
  return service;
}

export type PromptsService = ReturnType<typeof createPromptsService>;
