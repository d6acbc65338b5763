// The paid gateway, in design.md's order: prepare() runs the named steps resolve target →
// authenticate → authorize → (idempotency key) → rate limit → validate → build the model request →
// reserve; complete() or stream() then call the model, and billing settles the charge and records
// the call, or gives it back. Every failure once the app is known is recorded as a failed
// invocation with its type, and nothing is charged for it. Charging is billing's
// (billing/paid-calls.ts); the SQL of conversations and files is in queries.ts.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { MultipartFile } from '@fastify/multipart';
import {
  type CallAnswer,
  type CallMode,
  type CallRequest,
  declareTemplateVariables,
  type FileReference,
  type IoSchema,
  type PromptConfig,
  type PromptVersion,
  renderTemplate,
} from '@tollbooth/contract';
import type { ValidateFunction } from 'ajv';
import type { AppRow, AppsService } from '../apps/service.ts';
import type { AuthContext } from '../auth/plugin.ts';
import type { CallCharge, ModelCostBound, PaidCalls } from '../billing/paid-calls.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import { checkAppMode, priceFields, withOptionalInputs } from '../dify/compat-service.ts';
import { AppError } from '../errors.ts';
import type { PromptsService } from '../prompts/service.ts';
import type { CallerSignal } from '../providers/abort-hook.ts';
import { IMAGE_TOKENS_BOUND, inputTokensBound, type ModelUsageForCost, modelCostMicros } from '../providers/model-prices.ts';
import type { ModelRouter, OwnCredentials } from '../providers/registry.ts';
import { countPromptTokens, countTokens } from '../providers/tokens.ts';
import {
  type ChatImage,
  type ChatMessage,
  type EveryKey,
  type ModelRequest,
  type ModelUsage,
  type PreparedModelRequest,
  withDeadline,
} from '../providers/types.ts';
import type { RateLimitDecision, RateLimiter } from '../rate-limit.ts';
import { toStorableText } from '../request-guards.ts';
import { linearRegExp } from '../safe-regex.ts';
import { createAjv, describeSchemaError } from '../validation.ts';
import type { WorkflowCallTarget } from '../workflows/call-target-service.ts';
import type { CallTargetCache } from './call-target-cache.ts';
import { demoMetadata } from './demo-calls.ts';
import { storeUpload, type UploadedFile } from './files.ts';
import { hashRequest, type IdempotencyStore } from './idempotency.ts';
import { errorTypeOf } from './outcomes.ts';
import { checkPriceCap } from './price-cap.ts';
import { selectConversationOwner, selectRecentMessages, selectUploadedFile } from './queries.ts';

export type { CallAnswer, CallMode, FileReference } from '@tollbooth/contract';
/** The per-process cache of call targets the gateway fills, for the other caller protocols (openai/). */
export type { CallTargetCache } from './call-target-cache.ts';
/** What may be uploaded, and how large (Dify's parameters answer says so). */
export { ALLOWED_UPLOADS, MAX_UPLOAD_BYTES } from './files.ts';
/** The body of a call; the route schema and the service read the same declaration. */
export type CallBody = CallRequest;

/** A call that passed every check and holds its charge; run it with complete() or stream(). */
export interface PreparedCall {
  app: AppRow;
  mode: CallMode;
  auth: AuthContext;
  endUser: string;
  /** The call's reservation (billing/paid-calls.ts); settled on success, given back on failure. */
  charge: CallCharge;
  modelRequest: PreparedModelRequest;
  resolved: ReturnType<ModelRouter['resolve']>;
  /** The prompt app's model name (the model table's key); '' for workflow calls. */
  modelName: string;
  outputSchema: IoSchema | null;
  conversationId: string | null;
  /** True when this call starts its conversation (its id is chosen before the call, so every stream event carries it). */
  newConversation?: boolean;
  query: string | null;
  taskId: string;
  /** The answer's message id (and its invocation's id), the same in every stream event. */
  messageId: string;
  /** The caller's inputs, kept with a chat turn (GET messages). */
  inputs?: Record<string, unknown>;
  startedAt: number;
  rateLimit: RateLimitDecision;
  /** Set when the call runs under an Idempotency-Key: its answer is stored for replays. */
  idempotency: { userId: string; key: string } | null;
  /** False when the app keeps no log of its turns (a workflow app with logging off). */
  keepTurn?: boolean;
  /**
   * Set by a caller protocol that sent part of the answer outside the text deltas (the OpenAI
   * routes' streamed tool-call pieces): the stream is then charged like one whose text went out.
   */
  answerSent?: boolean;
}

/** What every prepared call has, whatever its app's type. */
type CallCommon = Pick<PreparedCall, 'idempotency' | 'app' | 'mode' | 'auth' | 'endUser' | 'taskId' | 'messageId' | 'inputs' | 'startedAt' | 'rateLimit'>;

/**
 * A prepared call, every key spelt out in one order whatever the app's type, so that all calls share
 * one hidden class: built as `{ ...call, charge, … }`, each call's got a class of its own in V8, and
 * every function reading it went megamorphic (decision 0058).
 */
function preparedCall(common: CallCommon, part: EveryKey<Omit<PreparedCall, keyof CallCommon | 'answerSent'>>): PreparedCall {
  const prepared: EveryKey<PreparedCall> = {
    idempotency: common.idempotency,
    app: common.app,
    mode: common.mode,
    auth: common.auth,
    endUser: common.endUser,
    taskId: common.taskId,
    messageId: common.messageId,
    inputs: common.inputs,
    startedAt: common.startedAt,
    rateLimit: common.rateLimit,
    charge: part.charge,
    resolved: part.resolved,
    modelName: part.modelName,
    outputSchema: part.outputSchema,
    conversationId: part.conversationId,
    newConversation: part.newConversation,
    query: part.query,
    keepTurn: part.keepTurn,
    modelRequest: part.modelRequest,
    answerSent: undefined,
  };
  return prepared;
}

export type Preparation = { kind: 'call'; call: PreparedCall } | { kind: 'replay'; status: number; body: CallAnswer };

/** Who is calling, as the route's preHandler found out (routes.ts); a failure is reported once the app is known. */
export type CallerIdentity = { auth: AuthContext | null; failure?: undefined } | { auth?: undefined; failure: unknown };

/** One call as the route hands it over. */
export interface CallRequestContext {
  slug: string;
  mode: CallMode;
  caller: CallerIdentity;
  body: CallBody;
  idempotencyKey: string | null;
  /** The X-Max-Price-Cents header. */
  maxPriceCents: number | null;
  /** performance.now() when the call began (before its caller was authenticated). */
  startedAt: number;
  /** The Tollbooth-Hop header of the caller's request, sent to a workflow app's provider (http/call-chain.ts); made only when asked for (it hashes the credentials). */
  hop: () => string;
  /**
   * Told the rate-limit decision once the call is counted, so a call refused after that (402, 400…)
   * still carries the RateLimit headers; and the refusing decision of a call a limit refuses (429).
   */
  onRateLimit?: (decision: RateLimitDecision) => void;
}

/** The multipart body of an upload, read only once the caller may upload to the app. */
export interface UploadBody {
  isMultipart: boolean;
  file: () => Promise<MultipartFile | undefined>;
}

const MAX_HISTORY_MESSAGES = 20;
const MAX_QUERY_LENGTH = 100_000;
/** With the query's cap, keeps validating inputs against any saved schema under 10 ms. */
const MAX_INPUTS_CHARACTERS = 64 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NO_CREDENTIALS = 'Authentication credentials were not provided: send Authorization: Bearer <API key>';

// Patterns run on a linear-time engine: no schema can make validation stall the process.
const inputValidator = createAjv({ coerceTypes: false, code: { regExp: linearRegExp } });

export interface GatewayDependencies {
  db: Database;
  config: Config;
  apps: AppsService;
  prompts: PromptsService;
  models: ModelRouter;
  /** An app owner's own provider credentials, for prompt apps on key_source 'own' (bring your own key). */
  ownCredentials?: (userId: string) => Promise<OwnCredentials>;
  rateLimiter: RateLimiter;
  /** Calls per user across every key and token. */
  userRateLimiter?: RateLimiter;
  idempotency: IdempotencyStore;
  callTargets: CallTargetCache;
  /** Charges, settles, gives back and records paid calls (billing/paid-calls.ts). */
  paidCalls: PaidCalls;
  /** Workflow apps: prepares their upstream call (workflows/call-target-service.ts). */
  workflowCalls: WorkflowCallTarget;
}

/** A prompt app's call once its inputs are checked: the rendered prompt and what the model must see with it. */
interface ValidatedPromptCall {
  query: string | undefined;
  renderedText: string;
  conversationId: string | null;
  newConversation: boolean;
  history: ChatMessage[];
  images: ChatImage[];
}

export function createGatewayService({
  db,
  config,
  apps,
  prompts,
  models,
  ownCredentials = async () => ({}),
  rateLimiter,
  userRateLimiter,
  idempotency,
  callTargets,
  paidCalls,
  workflowCalls,
}: GatewayDependencies) {
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

  const recordFailure = (app: AppRow, mode: CallMode, auth: AuthContext | null, endUser: string, startedAt: number, error: unknown, demo = false) =>
    paidCalls.recordFailure({
      appId: app.id,
      callerId: auth?.user.id ?? null,
      apiKeyId: auth?.apiKey?.id ?? null,
      endUser,
      mode,
      // Its outcome (failed, or rejected for a caller's mistake) follows from the type: outcomes.ts.
      errorType: errorTypeOf(error),
      latencyMs: performance.now() - startedAt,
      demo,
    });

  // --- The steps of prepare(), in their order -------------------------------------------------

  /** 1. Resolve the target: the callable app and its active prompt configuration (cached per process). */
  const resolveTarget = async (slug: string) => {
    const target = await callTargets.get(slug, async () => {
      const found = await apps.findCallableApp(slug);
      return found ? { app: found, config: found.type === 'prompt' ? await prompts.readActivePromptConfig(found.id) : null } : null;
    });
    if (!target) throw new AppError('not_found', 'Application not found');
    return target;
  };

  /** 2. Authenticate: the caller the route's preHandler identified, or why it could not. */
  const authenticate = (caller: CallerIdentity): AuthContext => {
    if (caller.failure !== undefined) throw caller.failure;
    if (!caller.auth) throw new AppError('unauthorized', NO_CREDENTIALS);
    return caller.auth;
  };

  /** 3. Authorize: the caller may call this app (checkCallAccess). */
  const authorize = checkCallAccess;

  /** 4. With an Idempotency-Key: claim it, or find the stored answer to replay. */
  const claimIdempotencyKey = async (auth: AuthContext, key: string, request: CallRequestContext) => {
    const started = await idempotency.begin(auth.user.id, key, hashRequest({ slug: request.slug, mode: request.mode, body: request.body }));
    if (started.kind === 'replay') return { kind: 'replay' as const, status: started.status, body: started.body as CallAnswer };
    return { kind: 'claimed' as const, claim: { userId: auth.user.id, key } };
  };

  /** 5. Rate limit: per key (or token), then across all of the user's keys, so more keys do not mean more calls. */
  const checkRateLimits = async (auth: AuthContext): Promise<RateLimitDecision> => {
    const decision = await rateLimiter.hit(auth.apiKey ? `key:${auth.apiKey.id}` : `user:${auth.user.id}`);
    if (!decision.allowed) throw new RateLimitedError(decision);
    const userDecision = userRateLimiter ? await userRateLimiter.hit(`user-all:${auth.user.id}`) : null;
    if (userDecision && !userDecision.allowed) throw new RateLimitedError(userDecision);
    return decision;
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

  /**
   * 8. Reserve, last, so nothing after it can fail: the caller's price cap is checked against the
   * app's price (the owner's own calls and demo answers are free, demo-calls.ts), then billing takes the charge.
   */
  const reserve = async (
    app: AppRow,
    auth: AuthContext,
    maxPriceCents: number | null,
    demo = false,
    modelCost: ModelCostBound | null = null,
  ): Promise<CallCharge> => {
    const listPriceCents = app.owner_id === auth.user.id || demo ? 0 : app.price_cents;
    checkPriceCap(listPriceCents, auth, maxPriceCents);
    try {
      return await paidCalls.take(
        {
          userId: auth.user.id,
          apiKeyId: auth.apiKey?.id ?? null,
          monthlySpendLimitCents: auth.apiKey?.monthlySpendLimitCents ?? null,
          dailySpendLimitCents: auth.apiKey?.dailySpendLimitCents ?? null,
        },
        { appId: app.id, listPriceCents, ownerId: app.owner_id, modelCost },
      );
    } catch (error) {
      // A caller out of credit for the price is told where to add some (issue 25); the owner's own
      // call short of its model cost already says so (billing/paid-calls.ts).
      if (error instanceof AppError && error.code === 'insufficient_credits' && listPriceCents > 0) throw insufficientCredits(listPriceCents, config.publicUrl);
      throw error;
    }
  };

  /** Checks everything that can be checked before money moves, then reserves the price. A failure once the app is known is recorded. */
  const prepare = async (request: CallRequestContext): Promise<Preparation> => {
    const { mode, body, startedAt } = request;
    const target = await resolveTarget(request.slug);
    const app = target.app;
    let auth: AuthContext | null = null;
    let endUser = typeof body.user === 'string' ? toStorableText(body.user.slice(0, 200)) : '';
    let claimedKey: { userId: string; key: string } | null = null;
    try {
      auth = authenticate(request.caller);
      endUser ||= auth.user.id;
      authorize(app, auth);
      if (app.type === 'prompt') checkAppMode(app.interaction_mode === 'chat', mode);
      // A conversation's last turn may have been answered before its commit (billing/paid-calls.ts).
      if (mode === 'chat' && body.conversation_id) await paidCalls.written();
      if (request.idempotencyKey !== null) {
        const claim = await claimIdempotencyKey(auth, request.idempotencyKey, request);
        if (claim.kind === 'replay') return claim;
        claimedKey = claim.claim;
      }
      const rateLimit = await checkRateLimits(auth);
      request.onRateLimit?.(rateLimit);
      const call: CallCommon = {
        idempotency: claimedKey,
        app,
        mode,
        auth,
        endUser,
        taskId: randomUUID(),
        messageId: randomUUID(),
        inputs: body.inputs ?? {},
        startedAt,
        rateLimit,
      };

      if (app.type === 'workflow') {
        // Workflow apps: the provider is the upstream (validated and built by workflows/call-target-service.ts); everything from here on is the same path.
        const upstream = await workflowCalls.prepare({ app, mode, auth, body, endUser, hop: request.hop() });
        const charge = await reserve(app, auth, request.maxPriceCents);
        const prepared = preparedCall(call, {
          charge,
          resolved: { provider: upstream.provider, upstreamModel: upstream.provider.name, demo: false },
          modelName: '',
          outputSchema: null,
          conversationId: upstream.conversationId,
          newConversation: undefined,
          query: upstream.query,
          keepTurn: upstream.keepTurn,
          modelRequest: { model: upstream.provider.name, messages: [{ role: 'user', content: upstream.query ?? '' }] },
        });
        return { kind: 'call', call: prepared };
      }

      const config = target.config!;
      const validated = await validate(app, config.active_version, mode, body, auth);
      // Only an app on its owner's own key looks up their credentials (cached per process); platform apps' path is unchanged.
      const own = config.key_source === 'own' ? await ownCredentials(app.owner_id) : null;
      const { resolved, modelRequest } = buildModelRequest(config, mode, validated, own);
      const charge = await reserve(app, auth, request.maxPriceCents, resolved.demo, modelCostBound(resolved, modelRequest));
      const prepared = preparedCall(call, {
        charge,
        resolved,
        modelName: config.model,
        outputSchema: config.active_version.output_schema,
        conversationId: validated.conversationId,
        newConversation: validated.newConversation,
        query: validated.query ?? null,
        keepTurn: undefined,
        modelRequest,
      });
      return { kind: 'call', call: prepared };
    } catch (error) {
      // A limit refused it: the caller's, or the embed widget's per-visitor one (its authentication).
      if (error instanceof RateLimitedError) request.onRateLimit?.(error.decision);
      if (claimedKey) await idempotency.abandon(claimedKey.userId, claimedKey.key);
      await recordFailure(app, mode, auth, endUser, startedAt, error);
      throw error;
    }
  };

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

  /** Has billing settle the charge and record the success (batched with other calls); returns the answer. */
  const finish = async (call: PreparedCall, answer: string, usage: ModelUsage): Promise<CallAnswer> => {
    const latencyMs = performance.now() - call.startedAt;
    const invocationId = call.messageId;
    const createdAt = new Date();
    const conversationId = call.mode === 'chat' ? (call.conversationId ?? randomUUID()) : null;
    // Answered before the settlement commit unless the caller asked for exactly-once (an Idempotency-Key): its stored answer and its charge are then both written before it goes out.
    await paidCalls.settle(
      call.charge,
      {
        invocationId,
        appId: call.app.id,
        creatorId: call.app.owner_id,
        description: `Call to ${call.app.slug}`,
        callerId: call.auth.user.id,
        apiKeyId: call.auth.apiKey?.id ?? null,
        endUser: call.endUser,
        mode: call.mode,
        latencyMs,
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        demo: call.resolved.demo,
        model: call.app.type === 'prompt' ? call.modelName : '',
        provider: call.resolved.providerKind ?? '',
        modelCostMicros: call.resolved.price ? modelCostMicros(call.resolved.price, usageForCost(usage, call)) : 0,
        createdAt,
        turn:
          conversationId && call.keepTurn !== false
            ? {
                conversationId,
                isNew: call.newConversation ?? call.conversationId === null,
                userContent: toStorableText(call.modelRequest.messages.at(-1)?.content ?? call.query ?? ''),
                answer: toStorableText(answer),
                query: toStorableText(call.query ?? ''),
                inputs: call.inputs ?? {},
              }
            : null,
      },
      { beforeAnswer: call.idempotency !== null },
    );
    const result: CallAnswer = {
      event: 'message',
      task_id: call.taskId,
      id: invocationId,
      message_id: invocationId,
      conversation_id: conversationId ?? '',
      mode: call.mode,
      answer,
      metadata: {
        usage: {
          prompt_tokens: usage.inputTokens,
          completion_tokens: usage.outputTokens,
          total_tokens: usage.inputTokens + usage.outputTokens,
          input_tokens: usage.inputTokens,
          output_tokens: usage.outputTokens,
          ...priceFields(call.charge.priceCents),
          latency: Math.round(latencyMs) / 1000,
        },
        ...demoMetadata(call.resolved),
      },
      created_at: Math.floor(createdAt.getTime() / 1000),
    };
    if (call.idempotency) await idempotency.complete(call.idempotency.userId, call.idempotency.key, 200, result);
    return result;
  };

  /**
   * Gives the charge back and records the failure. `usage`: the model answered (its cost was
   * incurred) but the call is not charged; the app's owner then bears the model cost (decision 0037).
   */
  const fail = async (call: PreparedCall, error: unknown, usage: ModelUsage | null = null) => {
    const micros = usage && call.resolved.price ? modelCostMicros(call.resolved.price, usageForCost(usage, call)) : 0;
    if (call.idempotency) await idempotency.abandon(call.idempotency.userId, call.idempotency.key);
    if (usage && micros > 0) {
      await paidCalls.settleUnpaid(call.charge, {
        invocationId: call.messageId,
        appId: call.app.id,
        creatorId: call.app.owner_id,
        description: `Model cost of an unpaid call to ${call.app.slug}`,
        callerId: call.auth.user.id,
        apiKeyId: call.auth.apiKey?.id ?? null,
        endUser: call.endUser,
        mode: call.mode,
        latencyMs: performance.now() - call.startedAt,
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        demo: false,
        model: call.modelName,
        provider: call.resolved.providerKind ?? '',
        modelCostMicros: micros,
        createdAt: new Date(),
        turn: null,
        errorType: errorTypeOf(error),
      });
      return;
    }
    await paidCalls.giveBack(call.charge);
    await recordFailure(call.app, call.mode, call.auth, call.endUser, call.startedAt, error, call.resolved.demo);
  };

  return {
    prepare,

    /** Stores a file the caller may reference in a later call to the app; the body is read only once access is checked. */
    async upload(slug: string, auth: AuthContext | null, body: UploadBody): Promise<UploadedFile> {
      const target = await apps.findCallableApp(slug);
      if (!target) throw new AppError('not_found', 'Application not found');
      if (!auth) throw new AppError('unauthorized', NO_CREDENTIALS);
      checkCallAccess(target, auth);
      if (!body.isMultipart) throw new AppError('unsupported_media_type', 'Send multipart/form-data with a "file" field', 'file');
      return storeUpload(db, config.dataDir, { userId: auth.user.id, appId: target.id }, await body.file(), config.uploads.quotaBytes);
    },

    async complete(call: PreparedCall, signal: CallerSignal): Promise<CallAnswer> {
      // The model answered but the call will not be charged: its usage, for the owner to bear.
      let unpaid: ModelUsage | null = null;
      try {
        const result = await call.resolved.provider.complete(withDeadline(call.modelRequest, signal, config.gateway.providerTimeoutMs));
        unpaid = result.usage;
        // The caller left while the model worked (a provider may still answer after the abort): the
        // answer cannot be delivered, so it is not charged.
        if (signal.aborted) throw clientDisconnected();
        checkOutput(call, result.text);
        unpaid = null;
        return await finish(call, result.text, result.usage);
      } catch (error) {
        // A caller who left once the model was asked: the provider read the prompt (decision 0037).
        await fail(call, error, unpaid ?? (signal.aborted ? { inputTokens: countPromptTokens(call.modelRequest.messages), outputTokens: 0 } : null));
        throw error;
      }
    },

    /**
     * Streams the answer: onDelta for each chunk, onEvent for a workflow provider's other events (a
     * route without onEvent sends them nowhere). The charge rule: a caller who has been sent any part
     * of the answer (a text chunk, or an event carrying answer content such as an LLM node's outputs
     * or a file) pays, whether or not it stays to the end (the upstream is aborted when it leaves); a
     * call cut before that is free; a provider failure at any point is free. An app with an output
     * schema sends nothing until the whole answer passed the schema, then the validated JSON as one
     * chunk (decision 0026).
     */
    async stream(
      call: PreparedCall,
      signal: CallerSignal,
      onDelta: (text: string) => void,
      onEvent?: (event: Record<string, unknown>) => void,
    ): Promise<CallAnswer> {
      let text = '';
      let delivered = false;
      let usage: ModelUsage | null = null;
      /** The model has begun answering (an event arrived): from here its cost is incurred. */
      let answering = false;
      // The schema is checked on the whole answer, so none of it may leave before.
      const validatedFirst = call.outputSchema !== null;
      try {
        for await (const event of call.resolved.provider.stream(withDeadline(call.modelRequest, signal, config.gateway.providerTimeoutMs))) {
          answering = true;
          // Stopped or gone before this event went out: nothing more is sent, so nothing more is charged.
          if (signal.aborted) break;
          if (event.type === 'delta') {
            text += event.text;
            if (!validatedFirst) {
              onDelta(event.text);
              delivered = true;
            }
          } else if (event.type === 'event') {
            if (onEvent) {
              onEvent(event.event);
              if (event.answer) delivered = true;
            }
          } else usage = event.usage;
        }
        if (signal.aborted) throw clientDisconnected();
        if (!usage) throw new AppError('provider_error', 'The model stream ended without usage');
        checkOutput(call, text);
        if (validatedFirst) {
          onDelta(text);
          delivered = true;
        }
      } catch (error) {
        // The caller left after receiving part of the answer: it is charged for what it was sent.
        if (!((delivered || call.answerSent) && signal.aborted)) {
          // Not charged; what the model generated is still the owner's to pay (decision 0037): its
          // reported usage, or (cut off before it reported any: it failed mid-answer, or the caller
          // left once the model was asked) the prompt's and the generated text's tokens.
          const incurred =
            usage ?? (answering || signal.aborted ? { inputTokens: countPromptTokens(call.modelRequest.messages), outputTokens: countTokens(text) } : null);
          await fail(call, error, incurred);
          throw error;
        }
      }
      try {
        // A caller who left mid-answer cut the upstream before it reported usage: what was generated is counted here.
        return await finish(call, text, usage ?? { inputTokens: countPromptTokens(call.modelRequest.messages), outputTokens: countTokens(text) });
      } catch (error) {
        await fail(call, error);
        throw error;
      }
    },
  };
}

const imageCount = (request: Pick<ModelRequest, 'messages'>) => request.messages.reduce((count, message) => count + (message.images?.length ?? 0), 0);
/** The usage a call's model cost is priced by (a literal, not a spread: decision 0058). */
const usageForCost = (usage: ModelUsage, call: PreparedCall): ModelUsageForCost => ({
  inputTokens: usage.inputTokens,
  outputTokens: usage.outputTokens,
  images: imageCount(call.modelRequest),
});

/**
 * The most a prompt call can cost on the operator's key (null when it costs the operator nothing:
 * the demo model, the creator's own key). Output is bounded by max_tokens; input by the prompt's
 * bytes (quick), or its tokens with a margin for other providers' tokenizers (precise).
 */
function modelCostBound(resolved: ReturnType<ModelRouter['resolve']>, request: PreparedCall['modelRequest']): ModelCostBound | null {
  const price = resolved.price;
  if (!price || resolved.demo || resolved.ownKey) return null;
  const images = imageCount(request);
  const outputTokens = request.maxTokens ?? 4096;
  let bytes = 0;
  for (const message of request.messages) bytes += Buffer.byteLength(message.content);
  return {
    quickMicros: modelCostMicros(price, { inputTokens: inputTokensBound(bytes, images), outputTokens }),
    preciseMicros: () =>
      modelCostMicros(price, {
        inputTokens: Math.ceil(countPromptTokens(request.messages) * 1.25) + 8 * request.messages.length + 64 + images * IMAGE_TOKENS_BOUND,
        outputTokens,
        images,
      }),
  };
}

const clientDisconnected = () => Object.assign(new Error('client disconnected'), { name: 'AbortError' });

export type GatewayService = ReturnType<typeof createGatewayService>;

/** The 402 of a caller whose credits do not cover the call: it names the Money page, where credits are added. */
export function insufficientCredits(priceCents: number, publicUrl: string) {
  return new AppError(
    'insufficient_credits',
    `Not enough credits for this call (${priceCents} ${priceCents === 1 ? 'cent' : 'cents'}): add credits on the Money page, ${publicUrl}/money, and try again`,
  );
}

/** Owners may call any status; everyone else only live public or embed apps (a private app is not even there). */
export function checkCallAccess(app: AppRow, auth: AuthContext) {
  if (app.owner_id === auth.user.id) return;
  if (app.visibility === 'private') throw new AppError('not_found', 'Application not found');
  if (app.status !== 'live') throw new AppError('app_unavailable', 'This application is not live');
}

export class RateLimitedError extends AppError {
  constructor(readonly decision: RateLimitDecision) {
    super('rate_limited', `Rate limit of ${decision.limit} calls per minute exceeded; retry in ${decision.resetSeconds} s`);
  }
}
