// The owner's side of a paid call on the operator's key (decisions 0025, 0037; issue 60 item 8): before
// the model is asked, the call reserves its worst-case model cost from the app's owner, so the
// operator never pays for an answer and no creator balance goes below zero. Once the answer's cost is
// known, the reservation keeps only what the call's price (less the platform fee) does not cover.
// service.ts holds these reservations in a call's charge (CallCharge.cost) next to the caller's lease.

import { formatCents, leastMicros as leastChargeMicros, type RateCard } from '@tollbooth/contract';
import { AppError } from '../../platform/errors.ts';
import { centsCovering, MICROS_PER_CENT } from '../../providers/model-prices.ts';
import { platformFeeOf } from '../platform-fee.ts';
import { type ChargeRequest, type CreditLeases, type LeasedCharge, NoLeaseError } from './leases.ts';

/** The whole cents a charge of `micros` brings its owner at least: its floor less its fee's ceiling (never below 0). */
function centsBroughtIn(micros: number, platformFeeBps: number): number {
  return Math.max(0, Math.floor(micros / MICROS_PER_CENT) - Math.ceil(platformFeeOf(micros, platformFeeBps) / MICROS_PER_CENT));
}

export function createModelCostReservations(leases: CreditLeases, platformFeeBps: number) {
  /** Creators whose earnings could not hold a lease lately: their cost reservations go to credits first for a second, without asking again. */
  const earningsThin = new Map<string, number>();

  /**
   * Reserves the model cost a call's price does not cover (decision 0037). A caller's call to a
   * creator's app: from the creator's earnings while they can hold a lease of several calls, else
   * from their credits, else from whatever earnings are left. The owner's own calls: credits only.
   */
  const takeCost = async (ownerId: string, missingCents: number, ownCall: boolean): Promise<LeasedCharge> => {
    const owner: ChargeRequest = { userId: ownerId, apiKeyId: null, monthlySpendLimitCents: null, priceCents: missingCents };
    const earnings: ChargeRequest = { userId: ownerId, apiKeyId: null, monthlySpendLimitCents: null, priceCents: missingCents, source: 'earnings' };
    if (!ownCall) {
      const now = Date.now();
      if ((earningsThin.get(ownerId) ?? 0) <= now) {
        try {
          return await leases.take(earnings, { leaseOnly: true });
        } catch (error) {
          if (!(error instanceof NoLeaseError)) throw error;
          if (earningsThin.size >= 10_000) earningsThin.clear();
          earningsThin.set(ownerId, now + 1000);
        }
      }
    }
    try {
      return await leases.take(owner);
    } catch (error) {
      if (ownCall || !(error instanceof AppError && error.code === 'insufficient_credits')) throw error;
      return await leases.take(earnings);
    }
  };

  /** The least a call's price less its fee brings in, in cents: what its model cost reservation need not cover. */
  const coveredCents = (priceCents: number, card: RateCard | null) =>
    card ? centsBroughtIn(leastChargeMicros(card), platformFeeBps) : priceCents - platformFeeOf(priceCents, platformFeeBps);

  return {
    /**
     * Reserves a call's worst-case model cost (`worstMicros`, rounded up to a cent) from the app's
     * owner. Throws insufficient_credits (the owner's own call) or model_cost_not_covered (a caller's)
     * when the owner cannot pay it, naming what the price (`priceCents`, or the least of `card`) leaves uncovered.
     */
    async reserve(call: { ownerId: string; ownCall: boolean; worstMicros: number; priceCents: number; card: RateCard | null }): Promise<LeasedCharge> {
      const worstCents = centsCovering(call.worstMicros);
      try {
        return await takeCost(call.ownerId, worstCents, call.ownCall);
      } catch (error) {
        if (error instanceof AppError && error.code === 'insufficient_credits')
          throw modelCostNotCovered(call.ownCall, Math.max(1, worstCents - coveredCents(call.priceCents, call.card)));
        throw error;
      }
    },

    /**
     * The answer's model cost is known: the settlement draws at most what it posts beyond what the
     * price (less the fee) covers, and a call posts at most its own cost rounded up (the running
     * total's rounding never adds a cent to one call). The rest of the worst case the call reserved
     * goes back to the owner's lease now, so the lease serves more calls before it renews (the
     * bench's 1-cent app reserved ~7 cents per call and drew 0-1). A charge that is not whole cents
     * posts at least its floor, and its fee at most its ceiling. `chargedMicros` is null when the
     * caller pays nothing from a lease.
     */
    keepDrawable(cost: LeasedCharge, modelCostMicros: number, chargedMicros: number | null): void {
      const covered = chargedMicros === null ? 0 : centsBroughtIn(chargedMicros, platformFeeBps);
      leases.keepOnly(cost, Math.max(0, centsCovering(modelCostMicros) - covered));
    },
  };
}

/** The owner's credits cannot pay a call's model cost: a 402 for the owner's own call, a 503 naming the reason for a caller. */
function modelCostNotCovered(ownCall: boolean, missingCents: number): AppError {
  const amount = formatCents(missingCents);
  if (ownCall) {
    return new AppError(
      'insufficient_credits',
      `Your credits do not cover this call's model cost (up to ${amount} more than its price brings in). Add credit on the Money page (/money).`,
    );
  }
  return new AppError(
    'model_cost_not_covered',
    "This app's creator has no credit or earnings left to pay for its model, so the call was refused and not charged. Try again later.",
  );
}
