// The platform's fee (PLATFORM_FEE_BPS): its share, in basis points, of what a caller pays the
// creator, rounded down to a whole minor unit (the creator keeps the fraction). The one rule for a
// paid call's price (paid-call/service.ts) and a subscription payment in any currency (payments/ledger.ts).

/** The platform fee on `amountMinor` (cents, or the currency's minor unit) at `feeBps` basis points. */
export function platformFeeOf(amountMinor: number, feeBps: number): number {
  return Math.floor((amountMinor * feeBps) / 10_000);
}
