// Callers cap what one call may cost: per API key (max_price_cents) and per call
// (X-Max-Price-Cents). The lower cap wins; a call priced above it is refused before anything is
// reserved, so it is never charged.
import type { AppRow } from '../apps/service.ts';
import type { AuthContext } from '../auth/plugin.ts';
import type { CallCharge, ModelCostBound, PaidCalls } from '../billing/paid-call/service.ts';
import { AppError } from '../platform/errors.ts';
import { payerOf } from './prepared-call.ts';
import { insufficientCredits } from './refusals.ts';

export function checkPriceCap(priceCents: number, auth: AuthContext, headerCapCents: number | null) {
  const caps = [auth.apiKey?.maxPriceCents ?? null, headerCapCents].filter((cap): cap is number => cap !== null);
  if (caps.length === 0 || priceCents === 0) return;
  const cap = Math.min(...caps);
  if (priceCents > cap) {
    throw new AppError('price_above_limit', `This call costs ${priceCents} cents, above your limit of ${cap} cents`, 'X-Max-Price-Cents');
  }
}

/**
 * The gateway's step 8, reserve, last, so nothing after it can fail: the caller's price cap is
 * checked against the app's price (the owner's own calls and demo answers are free, demo-calls.ts),
 * then billing takes the charge.
 */
export async function reserveWithinCap(
  paidCalls: PaidCalls,
  publicUrl: string,
  app: AppRow,
  auth: AuthContext,
  maxPriceCents: number | null,
  demo: boolean,
  modelCost: ModelCostBound | null,
): Promise<CallCharge> {
  const listPriceCents = app.owner_id === auth.user.id || demo ? 0 : app.price_cents;
  checkPriceCap(listPriceCents, auth, maxPriceCents);
  try {
    return await paidCalls.take(payerOf(auth), { appId: app.id, listPriceCents, ownerId: app.owner_id, modelCost });
  } catch (error) {
    // A caller out of credit for the price is told where to add some (issue 25); the owner's own
    // call short of its model cost already says so (billing/paid-call/service.ts).
    if (error instanceof AppError && error.code === 'insufficient_credits' && listPriceCents > 0) throw insufficientCredits(listPriceCents, publicUrl);
    throw error;
  }
}
