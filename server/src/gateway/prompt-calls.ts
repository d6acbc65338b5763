// A prompt app's call (the gateway's steps 6 and 7, service.ts): the query and inputs checked
// against the version's schema, the template rendered, the conversation's history and the call's
// images loaded, and the model request built, with the most it can cost on the operator's key; once
// the model answered, the answer checked against the app's output schema. Workflow apps have their
// own (workflows/call-target-service.ts).
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import {
  type CallMode,
  declareTemplateVariables,
  type FileReference,
  type IoSchema,
  MAX_INPUTS_CHARACTERS,
  type PromptConfig,
  type PromptVersion,
  renderTemplate,
} from '@tollbooth/contract';
import type { ValidateFunction } from 'ajv';
import type { AppRow } from '../apps/service.ts';
import type { AuthContext } from '../auth/plugin.ts';
import type { Database } from '../db/client.ts';
import { withOptionalInputs } from '../platform/call-rules.ts';
import { AppError } from '../platform/errors.ts';
import { linearRegExp } from '../platform/safe-regex.ts';
import { createAjv, describeSchemaError } from '../platform/validation.ts';
import { IMAGE_TOKENS_BOUND, inputTokensBound, type ModelUsageForCost, modelCostMicros } from '../providers/model-prices.ts';
import type { ModelRouter, OwnCredentials } from '../providers/registry.ts';
import { countPromptTokens } from '../providers/tokens.ts';
import type { ChatImage, ChatMessage, ModelRequest, ModelUsage } from '../providers/types.ts';
import type { CallBody, PreparedCall } from './prepared-call.ts';
import type { CallBound } from './price-cap.ts';
import { selectConversationOwner, selectRecentMessages, selectUploadedFile } from './queries.ts';

const MAX_HISTORY_MESSAGES = 20;
const MAX_QUERY_LENGTH = 100_000;
/** With the query's cap, keeps validating inputs against any saved schema under 10 ms. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// Patterns run on a linear-time engine: no schema can make validation stall the process. Own
// properties only: an input named "toString" left out is missing, not Object.prototype's function.
const inputValidator = createAjv({ coerceTypes: false, ownProperties: true, code: { regExp: linearRegExp } });

/** A prompt app's call once its inputs are checked: the rendered prompt and what the model must see with it. */
export interface ValidatedPromptCall {
  query: string | undefined;
  renderedText: string;
  conversationId: string | null;
  newConversation: boolean;
  history: ChatMessage[];
  images: ChatImage[];
}

export interface PromptCallDependencies {
  db: Database;
  models: ModelRouter;
}

export function createPromptCalls({ db, models }: PromptCallDependencies) {
  // Compiled once per prompt version; versions never change, so entries never go stale.
  const compiledSchemas = new Map<string, ValidateFunction>();
  const validatorFor = (key: string, schema: IoSchema) => {
    let validate = compiledSchemas.get(key);
    if (!validate) {
      try {
        validate = inputValidator.compile(schema);
      } catch (error) {
        // A schema saved before today's limits (e.g. a pattern RE2 cannot run): the app's fault, not a crash.
        throw new AppError('app_unavailable', `This app's schema cannot be used: ${(error as Error).message}`, undefined, undefined, 'invalid_schema');
      }
      if (compiledSchemas.size > 10_000) compiledSchemas.clear();
      compiledSchemas.set(key, validate);
    }
    return validate;
  };

  // A version's schema with its template's variables declared, found once per version object (the call target cache keeps it).
  const declaredSchemas = new WeakMap<PromptVersion, PromptVersion['input_schema']>();
  const declaredSchemaOf = (version: PromptVersion) => {
    let schema = declaredSchemas.get(version);
    if (!schema) {
      schema = declareTemplateVariables(version.prompt_template, version.input_schema);
      declaredSchemas.set(version, schema);
    }
    return schema;
  };

  /** 6. Validate a prompt app's call: query, inputs against the version's schema, the rendered template, conversation and files. */
  const validate = async (app: AppRow, version: PromptVersion, mode: CallMode, body: CallBody, auth: AuthContext): Promise<ValidatedPromptCall> => {
    const query = mode === 'chat' ? body.query : undefined;
    if (mode === 'chat' && (typeof query !== 'string' || query.trim() === '')) throw new AppError('invalid_param', 'query: is required', 'query');
    if (query && query.length > MAX_QUERY_LENGTH) throw new AppError('invalid_param', `query: must be at most ${MAX_QUERY_LENGTH} characters`, 'query');
    if (body.inputs && JSON.stringify(body.inputs).length > MAX_INPUTS_CHARACTERS) {
      throw new AppError('invalid_param', `inputs: must be at most ${MAX_INPUTS_CHARACTERS} characters of JSON`, 'inputs');
    }
    const inputs: Record<string, unknown> = { ...(body.inputs ?? {}) };
    // Every {{variable}} is a declared input, also in versions saved before saving declared them.
    const inputSchema = declaredSchemaOf(version);
    // A chat query fills the {{query}} variable when the inputs do not.
    if (query !== undefined && inputs.query === undefined && inputSchema.properties.query) inputs.query = query;
    const validateInputs = validatorFor(`${app.id}:${version.version}`, inputSchema);
    if (!validateInputs(inputs)) {
      const first = validateInputs.errors?.[0];
      const { path: parts, message: reason } = first ? describeSchemaError(first, 'is not a known input') : { path: [], message: 'is invalid' };
      const path = ['inputs', ...parts].join('.');
      throw new AppError('invalid_param', `${path}: ${reason}`, path);
    }
    const rendered = renderTemplate(version.prompt_template, withOptionalInputs(inputSchema, inputs));
    if (!rendered.ok) throw new AppError('invalid_param', `inputs: ${rendered.error}`, 'inputs');

    const continued = mode === 'chat' && body.conversation_id ? body.conversation_id : null;
    if (continued && !UUID.test(continued)) throw new AppError('invalid_param', 'conversation_id: must be a UUID', 'conversation_id');
    const history = continued ? await loadHistory(continued, app, auth) : [];
    // A new chat's id is chosen now, so the stream's first chunk already carries it.
    const conversationId = mode === 'chat' ? (continued ?? randomUUID()) : null;
    const images = await loadImages(body.files ?? undefined, auth);
    return { query, renderedText: rendered.text, conversationId, newConversation: mode === 'chat' && continued === null, history, images };
  };

  const loadHistory = async (conversationId: string, app: AppRow, auth: AuthContext): Promise<ChatMessage[]> => {
    const conversation = await selectConversationOwner(db, conversationId);
    if (!conversation || conversation.app_id !== app.id || conversation.caller_id !== auth.user.id) {
      throw new AppError('not_found', 'Conversation Not Exists.', 'conversation_id');
    }
    const history = await selectRecentMessages(db, conversationId, MAX_HISTORY_MESSAGES);
    return history.map((row) => ({ role: row.role, content: row.content }));
  };

  const loadImages = async (files: FileReference[] | undefined, auth: AuthContext): Promise<ChatImage[]> => {
    if (!files || files.length === 0) return [];
    if (files.length > 10) throw new AppError('invalid_param', 'files: at most 10 files per call', 'files');
    const images: ChatImage[] = [];
    for (const [index, file] of files.entries()) {
      if (file.transfer_method !== 'local_file' || !file.upload_file_id) {
        throw new AppError('invalid_param', `files.${index}: only transfer_method local_file with an upload_file_id is supported`, `files.${index}`);
      }
      if (!UUID.test(file.upload_file_id))
        throw new AppError('invalid_param', `files.${index}.upload_file_id: must be an uploaded file id`, `files.${index}.upload_file_id`);
      const row = await selectUploadedFile(db, file.upload_file_id);
      if (!row || row.user_id !== auth.user.id)
        throw new AppError('invalid_param', `files.${index}.upload_file_id: no such uploaded file`, `files.${index}.upload_file_id`);
      if (!row.mime_type.startsWith('image/')) throw new AppError('invalid_param', `files.${index}: only images can be sent to the model`, `files.${index}`);
      images.push({ mimeType: row.mime_type, data: await readFile(row.storage_path) });
    }
    return images;
  };

  /**
   * 7. Build the model request: the model to call (on the platform's keys, or on the app owner's own
   * credential: bring your own key) and the messages (system prompt, history, the rendered turn with its images).
   */
  const buildModelRequest = (config: PromptConfig, mode: CallMode, validated: ValidatedPromptCall, own: OwnCredentials | null) => {
    const version = config.active_version;
    const resolved = own ? models.resolveWith(config.model, own) : models.resolve(config.model);
    const userContent =
      mode === 'chat' && !version.prompt_template.includes('query') ? `${validated.renderedText}\n\n${validated.query}` : validated.renderedText;
    const messages: ChatMessage[] = [
      ...(version.system_prompt ? [{ role: 'system' as const, content: version.system_prompt }] : []),
      ...validated.history,
      { role: 'user', content: userContent, ...(validated.images.length > 0 ? { images: validated.images } : {}) },
    ];
    const modelRequest: PreparedCall['modelRequest'] = {
      model: resolved.upstreamModel,
      messages,
      temperature: config.temperature,
      maxTokens: config.max_tokens,
      topP: config.top_p,
      frequencyPenalty: config.frequency_penalty,
      presencePenalty: config.presence_penalty,
      ...(version.output_schema ? { jsonSchema: version.output_schema } : {}),
    };
    return { resolved, modelRequest };
  };

  /** Once the model answered: an app with an output schema accepts only JSON of that schema. */
  const checkOutput = (call: PreparedCall, text: string) => {
    if (!call.outputSchema) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new AppError('provider_error', 'The model answer is not JSON, but the app has an output schema', undefined, undefined, 'output_schema_mismatch');
    }
    const validate = validatorFor(`output:${call.app.id}:${JSON.stringify(call.outputSchema)}`, call.outputSchema);
    if (!validate(parsed)) {
      throw new AppError(
        'provider_error',
        `The model answer does not match the output schema: ${inputValidator.errorsText(validate.errors)}`,
        undefined,
        undefined,
        'output_schema_mismatch',
      );
    }
  };

  return { validate, buildModelRequest, checkOutput };
}

export const imageCount = (request: Pick<ModelRequest, 'messages'>) => request.messages.reduce((count, message) => count + (message.images?.length ?? 0), 0);
/** The usage a call's model cost is priced by (a literal, not a spread: decision 0058). */
export const usageForCost = (usage: ModelUsage, call: PreparedCall): ModelUsageForCost => ({
  inputTokens: usage.inputTokens,
  outputTokens: usage.outputTokens,
  images: imageCount(call.modelRequest),
});

/**
 * The most a prompt call can use (issue 60): output is bounded by max_tokens; input by the prompt's
 * bytes (quick), or its tokens with a margin for other providers' tokenizers (precise); and the
 * most it can cost on the operator's key (null when it costs the operator nothing: the demo model,
 * the creator's own key).
 */
export function callBound(resolved: ReturnType<ModelRouter['resolve']>, request: PreparedCall['modelRequest']): CallBound {
  const price = resolved.price;
  const images = imageCount(request);
  const outputTokens = request.maxTokens ?? 4096;
  let bytes = 0;
  for (const message of request.messages) bytes += Buffer.byteLength(message.content);
  const quickInputTokens = inputTokensBound(bytes, images);
  let precise: number | null = null;
  const preciseInputTokens = () =>
    (precise ??= Math.ceil(countPromptTokens(request.messages) * 1.25) + 8 * request.messages.length + 64 + images * IMAGE_TOKENS_BOUND);
  const costs = price && !resolved.demo && !resolved.ownKey ? price : null;
  return {
    quickInputTokens,
    preciseInputTokens,
    outputTokens,
    modelCost: costs
      ? {
          quickMicros: modelCostMicros(costs, { inputTokens: quickInputTokens, outputTokens }),
          preciseMicros: () => modelCostMicros(costs, { inputTokens: preciseInputTokens(), outputTokens, images }),
        }
      : null,
  };
}
