// The gateway's call as it travels: what a door hands over (CallRequestContext, its payer), and the
// prepared call that passed every check and holds its charge (PreparedCall), built with one hidden
// class for every call (decision 0058).
import type { MultipartFile } from '@fastify/multipart';
import type { CallAnswer, CallMode, CallRequest, IoSchema } from '@tollbooth/contract';
import type { AppRow } from '../apps/service.ts';
import type { AuthContext } from '../auth/plugin.ts';
import type { CallCharge, Payer } from '../billing/paid-call/service.ts';
import { microsToDecimalDollars, priceFields } from '../platform/call-rules.ts';
import type { CallPath } from '../platform/metrics.ts';
import type { RateLimitDecision } from '../platform/rate-limit.ts';
import type { Span } from '../platform/tracing.ts';
import type { ModelRouter } from '../providers/registry.ts';
import type { EveryKey, ModelUsage, PreparedModelRequest } from '../providers/types.ts';
import { demoMetadata } from './demo-calls.ts';

/** The body of a call; the route schema and the service read the same declaration. */
export type CallBody = CallRequest;

/** A call that passed every check and holds its charge; run it with complete() or stream(). */
export interface PreparedCall {
  app: AppRow;
  mode: CallMode;
  auth: AuthContext;
  endUser: string;
  /** The call's reservation (billing/paid-call/service.ts); settled on success, given back on failure. */
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
  /** The caller protocol it came through (metrics' path label). */
  path: CallPath;
  /** Its request's server span when tracing is on; the call's own spans are its children. */
  span: Span | null;
}

/** What every prepared call has, whatever its app's type. */
export type CallCommon = Pick<
  PreparedCall,
  'idempotency' | 'app' | 'mode' | 'auth' | 'endUser' | 'taskId' | 'messageId' | 'inputs' | 'startedAt' | 'rateLimit' | 'path' | 'span'
>;

/**
 * A prepared call, every key spelt out in one order whatever the app's type, so that all calls share
 * one hidden class: built as `{ ...call, charge, … }`, each call's got a class of its own in V8, and
 * every function reading it went megamorphic (decision 0058).
 */
export function preparedCall(common: CallCommon, part: EveryKey<Omit<PreparedCall, keyof CallCommon | 'answerSent'>>): PreparedCall {
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
    path: common.path,
    span: common.span,
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

/**
 * Who pays for a call, as its door authenticated it (door-service.ts's identifyPayer): the caller of
 * an API key or access token, or of the embed widget's publishable key; null when it sent no
 * credentials; or why its credentials were refused, reported once the app is known. Billing's Payer
 * (billing/paid-call/service.ts) is taken from it when the price is reserved.
 */
export type CallPayer = { auth: AuthContext | null; failure?: undefined } | { auth?: undefined; failure: unknown };

/** Who pays, as billing takes the charge: the caller, and its key's spend limits (a publishable key's daily cap too). */
export function payerOf(auth: AuthContext): Payer {
  return {
    userId: auth.user.id,
    apiKeyId: auth.apiKey?.id ?? null,
    monthlySpendLimitCents: auth.apiKey?.monthlySpendLimitCents ?? null,
    dailySpendLimitCents: auth.apiKey?.dailySpendLimitCents ?? null,
  };
}

/** One call as its door hands it over (door-service.ts's preparePaidCall). */
export interface CallRequestContext {
  slug: string;
  mode: CallMode;
  payer: CallPayer;
  body: CallBody;
  idempotencyKey: string | null;
  /** The caller's ceiling for this call in micro-dollars (X-Max-Price-Cents, X-Max-Price, max_price; door-service.ts). */
  maxPriceMicros: number | null;
  /** performance.now() when the call began (before its caller was authenticated). */
  startedAt: number;
  /** The Tollbooth-Hop header of the caller's request, sent to a workflow app's provider (http/call-chain.ts); made only when asked for (it hashes the credentials). */
  hop: () => string;
  /**
   * Told the rate-limit decision once the call is counted, so a call refused after that (402, 400…)
   * still carries the RateLimit headers; and the refusing decision of a call a limit refuses (429).
   */
  onRateLimit?: (decision: RateLimitDecision) => void;
  /** The caller protocol (door-service.ts names it from the route). */
  path: CallPath;
  /** The request's server span when tracing is on. */
  span: Span | null;
}

/** The multipart body of an upload, read only once the caller may upload to the app. */
export interface UploadBody {
  isMultipart: boolean;
  file: () => Promise<MultipartFile | undefined>;
}

/** What an answered call says, in the contract's CallAnswer: its ids, the answer, its usage, price and latency, and whether the demo model gave it. */
export function callAnswer(
  call: PreparedCall,
  id: string,
  conversationId: string | null,
  answer: string,
  usage: ModelUsage,
  latencyMs: number,
  createdAt: Date,
  /** The call's model cost in micro-dollars: what the owner's own call pays (no price). */
  modelCost: number,
): CallAnswer {
  return {
    event: 'message',
    task_id: call.taskId,
    id,
    message_id: id,
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
        ...priceFields(call.charge.chargedMicros ?? call.charge.priceCents * 10_000, call.charge.card, usage),
        // The owner's own call is charged no price but its model cost (issue 61: the console says what each call charged).
        ...(call.auth.user.id === call.app.owner_id ? { owner_model_cost: microsToDecimalDollars(modelCost) } : {}),
        latency: Math.round(latencyMs) / 1000,
      },
      ...demoMetadata(call.resolved),
    },
    created_at: Math.floor(createdAt.getTime() / 1000),
  };
}
