// The paid gateway, in docs/design.md's order: prepare() runs the named steps resolve target →
// authenticate → authorize → (idempotency key) → rate limit → validate → build the model request →
// reserve; complete() or stream() then call the model, and billing settles the charge and records
// the call, or gives it back. Every failure once the app is known is recorded as a failed
// invocation with its type, and nothing is charged for it. Charging is billing's
// (billing/paid-call/service.ts). A prompt app's steps 6 and 7 are in prompt-calls.ts, the call's shape
// (what a door hands over, the prepared call) in prepared-call.ts; every caller protocol's door
// reaches prepare() through door-service.ts. Protocol-neutral but for the answer itself: it is the
// contract's CallAnswer, Dify's message (platform/call-rules.ts's price fields), which each door
// answers in its own protocol.
import { randomUUID } from 'node:crypto';
import type { CallAnswer, CallMode } from '@tollbooth/contract';
import type { AppRow, AppsService } from '../apps/service.ts';
import type { AuthContext } from '../auth/plugin.ts';
import type { PaidCalls } from '../billing/paid-call/service.ts';
import type { Database } from '../db/client.ts';
import { toStorableText } from '../http/request-guards.ts';
import { checkAppMode } from '../platform/call-rules.ts';
import type { Config } from '../platform/config.ts';
import { AppError } from '../platform/errors.ts';
import type { CallPath, Metrics } from '../platform/metrics.ts';
import type { RateLimitDecision, RateLimiter } from '../platform/rate-limit.ts';
import { endFailed, type Span, type Tracing } from '../platform/tracing.ts';
import type { PromptsService } from '../prompts/service.ts';
import type { CallerSignal } from '../providers/abort-hook.ts';
import { modelCostMicros } from '../providers/model-prices.ts';
import type { ModelRouter, OwnCredentials } from '../providers/registry.ts';
import { countPromptTokens, countTokens } from '../providers/tokens.ts';
import { type ModelUsage, withDeadline } from '../providers/types.ts';
import type { CallAlerts } from '../webhooks/service.ts';
import type { WorkflowCallTarget } from '../workflows/call-target-service.ts';
import {
  endPlan,
  endSettlement,
  endUpstreamSpan,
  observeAnswer,
  observeFailure as observeFailureOf,
  providerLabel,
  startUpstreamSpan,
  tellRefusal,
} from './call-observation.ts';
import type { CallTarget, CallTargetCache } from './call-target-cache.ts';
import { storeUpload, type UploadedFile } from './files.ts';
import { hashRequest, type IdempotencyStore } from './idempotency.ts';
import { errorTypeOf } from './outcomes.ts';
import {
  type CallCommon,
  type CallPayer,
  type CallRequestContext,
  callAnswer,
  type Preparation,
  type PreparedCall,
  preparedCall,
  type UploadBody,
} from './prepared-call.ts';
import { type CallBound, reserveWithinCap } from './price-cap.ts';
import { callBound, createPromptCalls, usageForCost } from './prompt-calls.ts';
import { checkCallAccess, NO_CREDENTIALS, RateLimitedError } from './refusals.ts';

export type { CallAnswer, CallMode, FileReference } from '@tollbooth/contract';
/** An app as a call finds it (findTarget). */
export type { CallTarget } from './call-target-cache.ts';
/** What may be uploaded, and how large (Dify's parameters answer says so). */
export { ALLOWED_UPLOADS, MAX_UPLOAD_BYTES } from './files.ts';
export type { CallBody, CallPayer, CallRequestContext, Preparation, PreparedCall, UploadBody } from './prepared-call.ts';

export interface GatewayDependencies {
  db: Database;
  config: Config;
  apps: AppsService;
  prompts: PromptsService;
  models: ModelRouter;
  /** An app owner's own provider keys, for prompt apps on key_source 'own' (bring your own key). */
  ownCredentials?: (userId: string) => Promise<OwnCredentials>;
  rateLimiter: RateLimiter;
  /** Calls per user across every key and token. */
  userRateLimiter?: RateLimiter;
  idempotency: IdempotencyStore;
  callTargets: CallTargetCache;
  /** Charges, settles, gives back and records paid calls (billing/paid-call/service.ts). */
  paidCalls: PaidCalls;
  /** Workflow apps: prepares their upstream call (workflows/call-target-service.ts). */
  workflowCalls: WorkflowCallTarget;
  /** The paid call's metrics (platform/metrics.ts); null when metrics are off. */
  metrics?: Metrics | null;
  /** The paid call's spans (platform/tracing.ts); null when tracing is off. */
  tracing?: Tracing | null;
  /** key.rate_limited and spend_cap.reached webhooks (webhooks/service.ts), written off the answer's path. */
  callAlerts?: CallAlerts;
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
  metrics = null,
  tracing = null,
  callAlerts,
}: GatewayDependencies) {
  const { validate, buildModelRequest, checkOutput } = createPromptCalls({ db, models });

  // --- What a call shows of itself: metrics and spans (issue 58; nothing when both are off) -----

  const observeFailure = (app: AppRow, path: CallPath, span: Span | null, provider: string | null, error: unknown) =>
    observeFailureOf(metrics, app, path, span, provider, error);

  /** The callable app of a slug and its active prompt configuration, read on a miss of the call target cache. */
  const loadTarget = async (slug: string): Promise<CallTarget | null> => {
    const found = await apps.findCallableApp(slug);
    return found ? { app: found, config: found.type === 'prompt' ? await prompts.readActivePromptConfig(found.id) : null } : null;
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
    const target = await callTargets.get(slug, loadTarget);
    if (!target) throw new AppError('not_found', 'Application not found');
    return target;
  };

  /** 2. Authenticate: the payer its door identified, or why it could not. */
  const authenticate = (payer: CallPayer): AuthContext => {
    if (payer.failure !== undefined) throw payer.failure;
    if (!payer.auth) throw new AppError('unauthorized', NO_CREDENTIALS);
    return payer.auth;
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

  /** 8. Reserve, last, so nothing after it can fail (price-cap.ts). */
  const reserve = (app: AppRow, auth: AuthContext, ceilingMicros: number | null, demo = false, bound: CallBound | null = null) =>
    reserveWithinCap(paidCalls, config.publicUrl, app, auth, ceilingMicros, demo, bound);

  /** Checks everything that can be checked before money moves, then reserves the price. A failure once the app is known is recorded. */
  const prepare = async (request: CallRequestContext): Promise<Preparation> => {
    const { mode, body, startedAt } = request;
    // The plan/reserve span: resolve, authorize, limits, validation, the model request and the reservation.
    const planSpan = request.span && tracing ? tracing.child(request.span, 'plan/reserve') : null;
    let target: CallTarget;
    try {
      target = await resolveTarget(request.slug);
    } catch (error) {
      if (planSpan) endFailed(planSpan, errorTypeOf(error));
      throw error;
    }
    const app = target.app;
    if (planSpan) planSpan.setAttribute('tollbooth.app_kind', app.type);
    let auth: AuthContext | null = null;
    let endUser = typeof body.user === 'string' ? toStorableText(body.user.slice(0, 200)) : '';
    let claimedKey: { userId: string; key: string } | null = null;
    try {
      auth = authenticate(request.payer);
      endUser ||= auth.user.id;
      authorize(app, auth);
      if (app.type === 'prompt') checkAppMode(app.interaction_mode === 'chat', mode);
      // A conversation's last turn may have been answered before its commit (billing/paid-call/service.ts).
      if (mode === 'chat' && body.conversation_id) await paidCalls.written();
      if (request.idempotencyKey !== null) {
        const claim = await claimIdempotencyKey(auth, request.idempotencyKey, request);
        if (claim.kind === 'replay') {
          planSpan?.end();
          return claim;
        }
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
        path: request.path,
        span: request.span,
      };

      if (app.type === 'workflow') {
        // Workflow apps: the provider is the upstream (validated and built by workflows/call-target-service.ts); everything from here on is the same path.
        const upstream = await workflowCalls.prepare({ app, mode, auth, body, endUser, hop: request.hop() });
        const charge = await reserve(app, auth, request.maxPriceMicros);
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
        if (planSpan) endPlan(planSpan, prepared);
        return { kind: 'call', call: prepared };
      }

      const config = target.config!;
      const validated = await validate(app, config.active_version, mode, body, auth);
      // Only an app on its owner's own key looks up their credentials (cached per process); platform apps' path is unchanged.
      const own = config.key_source === 'own' ? await ownCredentials(app.owner_id) : null;
      const { resolved, modelRequest } = buildModelRequest(config, mode, validated, own);
      const charge = await reserve(app, auth, request.maxPriceMicros, resolved.demo, callBound(resolved, modelRequest));
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
      if (planSpan) endPlan(planSpan, prepared);
      return { kind: 'call', call: prepared };
    } catch (error) {
      if (planSpan) endFailed(planSpan, errorTypeOf(error));
      observeFailure(app, request.path, request.span, null, error);
      // A limit refused it: the caller's, or the embed widget's per-visitor one (its authentication).
      if (error instanceof RateLimitedError) request.onRateLimit?.(error.decision);
      if (auth?.apiKey && callAlerts) tellRefusal(callAlerts, auth.user.id, auth.apiKey.id, error);
      if (claimedKey) await idempotency.abandon(claimedKey.userId, claimedKey.key);
      await recordFailure(app, mode, auth, endUser, startedAt, error);
      throw error;
    }
  };

  /** Has billing settle the charge and record the success (batched with other calls); returns the answer. */
  const finish = async (call: PreparedCall, answer: string, usage: ModelUsage, upstreamMs: number): Promise<CallAnswer> => {
    const latencyMs = performance.now() - call.startedAt;
    const invocationId = call.messageId;
    const createdAt = new Date();
    const conversationId = call.mode === 'chat' ? (call.conversationId ?? randomUUID()) : null;
    const modelCost = call.resolved.price ? modelCostMicros(call.resolved.price, usageForCost(usage, call)) : 0;
    const settleSpan = call.span && tracing ? tracing.child(call.span, 'settlement') : null;
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
        modelCostMicros: modelCost,
        cachedInputTokens: usage.cachedInputTokens,
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
    if (metrics) observeAnswer(metrics, call, usage, modelCost, upstreamMs);
    if (settleSpan) endSettlement(settleSpan, call, usage, modelCost);
    const result = callAnswer(call, invocationId, conversationId, answer, usage, latencyMs, createdAt, modelCost);
    if (call.idempotency) await idempotency.complete(call.idempotency.userId, call.idempotency.key, 200, result);
    return result;
  };

  /**
   * Gives the charge back and records the failure. `usage`: the model answered (its cost was
   * incurred) but the call is not charged; the app's owner then bears the model cost (decision 0037).
   */
  const fail = async (call: PreparedCall, error: unknown, usage: ModelUsage | null = null) => {
    observeFailure(call.app, call.path, call.span, providerLabel(call), error);
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

    /** The spans of a paid call (null: tracing off); a door's authenticate span is made with it (door-service.ts). */
    tracing,

    /**
     * The callable app of a slug and its active prompt configuration, or null: the gateway's own entry
     * of the call target cache, so a door that reads the app first (the OpenAI planner, Dify's
     * Service API) and the call it prepares look it up once.
     */
    findTarget: (slug: string): Promise<CallTarget | null> => callTargets.get(slug, loadTarget),

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
      let upstreamSpan = call.span && tracing ? startUpstreamSpan(tracing, call) : null;
      try {
        const upstreamStarted = performance.now();
        const result = await call.resolved.provider.complete(
          withDeadline(call.modelRequest, signal, config.gateway.providerTimeoutMs, upstreamSpan ? tracing!.traceparentOf(upstreamSpan) : undefined),
        );
        const upstreamMs = performance.now() - upstreamStarted;
        if (upstreamSpan) {
          endUpstreamSpan(upstreamSpan, result.usage);
          upstreamSpan = null;
        }
        unpaid = result.usage;
        // The caller left while the model worked (a provider may still answer after the abort): the
        // answer cannot be delivered, so it is not charged.
        if (signal.aborted) throw clientDisconnected();
        checkOutput(call, result.text);
        unpaid = null;
        return await finish(call, result.text, result.usage, upstreamMs);
      } catch (error) {
        if (upstreamSpan) endFailed(upstreamSpan, errorTypeOf(error));
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
      let upstreamSpan = call.span && tracing ? startUpstreamSpan(tracing, call) : null;
      const upstreamStarted = performance.now();
      let upstreamMs = 0;
      try {
        for await (const event of call.resolved.provider.stream(
          withDeadline(call.modelRequest, signal, config.gateway.providerTimeoutMs, upstreamSpan ? tracing!.traceparentOf(upstreamSpan) : undefined),
        )) {
          if (!answering && metrics) metrics.firstToken(providerLabel(call), (performance.now() - upstreamStarted) / 1000);
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
        upstreamMs = performance.now() - upstreamStarted;
        if (upstreamSpan) {
          endUpstreamSpan(upstreamSpan, usage);
          upstreamSpan = null;
        }
        if (signal.aborted) throw clientDisconnected();
        if (!usage) throw new AppError('provider_error', 'The model stream ended without usage');
        checkOutput(call, text);
        if (validatedFirst) {
          onDelta(text);
          delivered = true;
        }
      } catch (error) {
        if (upstreamSpan) {
          endFailed(upstreamSpan, errorTypeOf(error));
          upstreamSpan = null;
        }
        if (upstreamMs === 0) upstreamMs = performance.now() - upstreamStarted;
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
        return await finish(call, text, usage ?? { inputTokens: countPromptTokens(call.modelRequest.messages), outputTokens: countTokens(text) }, upstreamMs);
      } catch (error) {
        await fail(call, error);
        throw error;
      }
    },
  };
}

const clientDisconnected = () => Object.assign(new Error('client disconnected'), { name: 'AbortError' });

export type GatewayService = ReturnType<typeof createGatewayService>;

export { checkCallAccess, insufficientCredits, RateLimitedError } from './refusals.ts';
