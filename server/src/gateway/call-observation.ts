// What a paid call shows of itself (issue 58): its metrics, its spans after GenAI's conventions, and
// the webhooks its owner asked for on a refusal. gateway/service.ts calls these at the steps it
// names; each does nothing the call's answer waits on, and nothing at all when metrics and tracing are off.
import { SpanKind } from '@opentelemetry/api';
import type { AppRow } from '../apps/service.ts';
import { outcomeOfErrorType } from '../platform/call-outcomes.ts';
import { AppError, SpendCapError } from '../platform/errors.ts';
import { type AppKind, type CallPath, type Metrics, SPEND_REFUSALS } from '../platform/metrics.ts';
import type { Span, Tracing } from '../platform/tracing.ts';
import type { ModelUsage } from '../providers/types.ts';
import type { CallAlerts } from '../webhooks/service.ts';
import { errorTypeOf } from './outcomes.ts';
import type { PreparedCall } from './prepared-call.ts';
import { RateLimitedError } from './refusals.ts';

/** The provider label of a call's metrics: the model provider's kind, 'demo', or the workflow provider's id. */
export const providerLabel = (call: PreparedCall): string => (call.resolved.demo ? 'demo' : (call.resolved.providerKind ?? call.resolved.provider.name));

/** GenAI's gen_ai.operation.name: a prompt app asks a chat model; a workflow app invokes an agent or workflow (Dify). */
export const operationOf = (call: PreparedCall): string => (call.app.type === 'prompt' ? 'chat' : 'invoke_agent');

/** A call that ended without an answer: counted by outcome, its refusal or upstream error too, and its trace marked. */
export function observeFailure(metrics: Metrics | null, app: AppRow, path: CallPath, span: Span | null, provider: string | null, error: unknown) {
  const errorType = errorTypeOf(error);
  const outcome = outcomeOfErrorType(errorType);
  if (metrics) {
    metrics.call(app.type as AppKind, path, outcome, app.slug);
    if (error instanceof RateLimitedError) metrics.rateLimited(path);
    else if (error instanceof AppError && SPEND_REFUSALS.has(error.code)) metrics.spendRefused(error.code);
    else if (provider !== null && errorType.startsWith('provider_')) metrics.upstreamError(provider, errorType);
  }
  if (span) {
    span.setAttribute('tollbooth.outcome', outcome);
    span.setAttribute('error.type', errorType);
  }
}

/** An answered call's metrics: the gateway's own time is the whole call so far (its settlement's share included) less the upstream's. */
export function observeAnswer(metrics: Metrics, call: PreparedCall, usage: ModelUsage, modelCost: number, upstreamMs: number) {
  const totalMs = performance.now() - call.startedAt;
  metrics.call(call.app.type as AppKind, call.path, 'success', call.app.slug);
  metrics.answered(
    call.app.type as AppKind,
    call.path,
    providerLabel(call),
    call.modelName || 'none',
    call.app.slug,
    Math.max(0, totalMs - upstreamMs) / 1000,
    upstreamMs / 1000,
    usage.inputTokens,
    usage.outputTokens,
    modelCost,
  );
}

/** The settlement span's end, and the call's span told what it was: the model, its usage, its price and cost. */
export function endSettlement(settleSpan: Span, call: PreparedCall, usage: ModelUsage, modelCost: number) {
  settleSpan.setAttribute('tollbooth.price_cents', call.charge.priceCents);
  settleSpan.setAttribute('tollbooth.model_cost_micros', modelCost);
  settleSpan.end();
  const span = call.span!;
  span.setAttribute('gen_ai.operation.name', operationOf(call));
  span.setAttribute('gen_ai.request.model', call.resolved.upstreamModel);
  span.setAttribute('gen_ai.usage.input_tokens', usage.inputTokens);
  span.setAttribute('gen_ai.usage.output_tokens', usage.outputTokens);
  span.setAttribute('tollbooth.price_cents', call.charge.priceCents);
  span.setAttribute('tollbooth.model_cost_micros', modelCost);
  span.setAttribute('tollbooth.outcome', 'success');
}

/** The plan/reserve span's end: what the reservation holds. */
export function endPlan(span: Span, call: PreparedCall) {
  span.setAttribute('tollbooth.price_cents', call.charge.priceCents);
  span.end();
}

/** The upstream call's span, after GenAI's conventions: "{operation} {model}", a client span. */
export function startUpstreamSpan(tracing: Tracing, call: PreparedCall): Span {
  const operation = operationOf(call);
  const model = call.resolved.upstreamModel;
  const span = tracing.child(call.span!, `${operation} ${model}`, undefined, SpanKind.CLIENT);
  span.setAttribute('gen_ai.operation.name', operation);
  span.setAttribute('gen_ai.provider.name', providerLabel(call));
  span.setAttribute('gen_ai.request.model', model);
  const request = call.modelRequest;
  if (request.temperature !== undefined) span.setAttribute('gen_ai.request.temperature', request.temperature);
  if (request.maxTokens !== undefined) span.setAttribute('gen_ai.request.max_tokens', request.maxTokens);
  if (request.topP !== undefined) span.setAttribute('gen_ai.request.top_p', request.topP);
  span.setAttribute('tollbooth.price_cents', call.charge.priceCents);
  return span;
}

export function endUpstreamSpan(span: Span, usage: ModelUsage | null) {
  if (usage) {
    span.setAttribute('gen_ai.usage.input_tokens', usage.inputTokens);
    span.setAttribute('gen_ai.usage.output_tokens', usage.outputTokens);
  }
  span.end();
}

/** A key's refusal that its owner asked to hear of (key.rate_limited, spend_cap.reached). */
export function tellRefusal(alerts: CallAlerts, userId: string, apiKeyId: string, error: unknown) {
  if (error instanceof RateLimitedError) alerts.keyRateLimited(userId, apiKeyId, error.decision.limit);
  else if (error instanceof SpendCapError) alerts.spendCapReached(userId, apiKeyId, error.window);
}
