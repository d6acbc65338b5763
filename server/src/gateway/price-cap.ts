// Before the model is asked, a call is authorised for the most it can cost (issue 60): the app's
// rate card (contract/src/pricing.ts) over the most the call can use — its prompt's tokens at most,
// max_tokens, the worst model cost — or the card's own cap. Callers cap what one call may cost: per
// API key (max_price_cents) and per call (X-Max-Price-Cents, X-Max-Price, an OpenAI body's
// max_price). The lower cap wins; a call whose most is above it is refused before anything is
// reserved (402 price_above_limit naming both figures), so it is never charged. The owner's own
// calls and demo answers are free (demo-calls.ts).
import { formatMicros, MICROS_PER_CENT_AMOUNT, mostMicros, type RateCard, type UsageBound } from '@tollbooth/contract';
import type { AppRow } from '../apps/service.ts';
import type { AuthContext } from '../auth/plugin.ts';
import type { CallCharge, ModelCostBound, PaidCalls } from '../billing/paid-call/service.ts';
import { AppError } from '../platform/errors.ts';
import { payerOf } from './prepared-call.ts';
import { insufficientCredits } from './refusals.ts';

/** The most a call can use, quick (from bytes) and precise (from a tokenizer, asked only when the quick one is refused). Null for workflow calls. */
export interface CallBound {
  quickInputTokens: number;
  preciseInputTokens: () => number;
  outputTokens: number;
  /** The most the call can cost upstream on the operator's key; null when it costs the operator nothing. */
  modelCost: ModelCostBound | null;
}

const usageBound = (bound: CallBound | null, precise: boolean): UsageBound =>
  bound === null
    ? { inputTokens: null, outputTokens: null, modelCostMicros: null }
    : {
        inputTokens: precise ? bound.preciseInputTokens() : bound.quickInputTokens,
        outputTokens: bound.outputTokens,
        modelCostMicros: bound.modelCost ? (precise ? bound.modelCost.preciseMicros() : bound.modelCost.quickMicros) : 0,
      };

function mostOf(card: RateCard, bound: CallBound | null, precise: boolean): number {
  const most = mostMicros(card, usageBound(bound, precise));
  if (most === null) throw new AppError('app_unavailable', "This app's price has no most per call; its creator must set pricing.max_call_micros");
  return most;
}

/** The caller's lowest ceiling in micro-dollars (the key's and the call's), or null. */
function ceilingOf(auth: AuthContext, callCeilingMicros: number | null): number | null {
  const keyCents = auth.apiKey?.maxPriceCents ?? null;
  const keyMicros = keyCents === null ? null : keyCents * MICROS_PER_CENT_AMOUNT;
  if (keyMicros === null) return callCeilingMicros;
  return callCeilingMicros === null ? keyMicros : Math.min(keyMicros, callCeilingMicros);
}

function priceAboveLimit(mostMicrosValue: number, ceilingMicros: number, fixed: boolean): AppError {
  const whole = mostMicrosValue % MICROS_PER_CENT_AMOUNT === 0 && ceilingMicros % MICROS_PER_CENT_AMOUNT === 0;
  const message =
    fixed && whole
      ? `This call costs ${mostMicrosValue / MICROS_PER_CENT_AMOUNT} cents, above your limit of ${ceilingMicros / MICROS_PER_CENT_AMOUNT} cents`
      : `This call may cost up to ${formatMicros(mostMicrosValue)}, above your limit of ${formatMicros(ceilingMicros)}`;
  return new AppError('price_above_limit', message, 'X-Max-Price-Cents');
}

/**
 * The gateway's step 8, reserve, last, so nothing after it can fail: the call's most is checked
 * against the caller's ceiling, then billing holds it (and the model cost it may not cover).
 */
export async function reserveWithinCap(
  paidCalls: PaidCalls,
  publicUrl: string,
  app: AppRow,
  auth: AuthContext,
  callCeilingMicros: number | null,
  demo: boolean,
  bound: CallBound | null,
): Promise<CallCharge> {
  const free = app.owner_id === auth.user.id || demo;
  const card = free ? null : (app.pricing ?? null);
  // Today's whole-cent price per call needs no card: its most is its price.
  let most = free ? 0 : card ? mostOf(card, bound, false) : Number(app.price_cents) * MICROS_PER_CENT_AMOUNT;
  const ceiling = most > 0 ? ceilingOf(auth, callCeilingMicros) : null;
  if (ceiling !== null && most > ceiling) {
    if (card && bound) most = mostOf(card, bound, true);
    if (most > ceiling) throw priceAboveLimit(most, ceiling, card === null || card.form === 'per_call');
  }
  const listPriceCents = Math.ceil(most / MICROS_PER_CENT_AMOUNT);
  try {
    return await paidCalls.take(payerOf(auth), {
      appId: app.id,
      listPriceCents,
      ownerId: app.owner_id,
      modelCost: bound?.modelCost ?? null,
      card,
      mostMicros: most,
    });
  } catch (error) {
    // A caller out of credit for the price is told where to add some (issue 25); the owner's own
    // call short of its model cost already says so (billing/paid-call/service.ts).
    if (error instanceof AppError && error.code === 'insufficient_credits' && listPriceCents > 0) throw insufficientCredits(listPriceCents, publicUrl);
    throw error;
  }
}
