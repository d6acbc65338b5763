// The price-change rule: a decrease applies at once; an increase reaches callers only after the
// notice period (PRICE_INCREASE_NOTICE_DAYS), shown meanwhile as the upcoming price and its date.
// An app that was never live has no callers yet, so any change to it applies at once.

export interface PriceState {
  /** Price in force now. */
  priceCents: number;
  upcomingPriceCents: number | null;
  upcomingPriceAt: Date | null;
}

export function planPriceChange(
  current: { priceCents: number; wentLiveAt: Date | null },
  requestedCents: number,
  noticeDays: number,
  now = new Date(),
): PriceState {
  if (requestedCents <= current.priceCents || current.wentLiveAt === null || noticeDays === 0) {
    return { priceCents: requestedCents, upcomingPriceCents: null, upcomingPriceAt: null };
  }
  return { priceCents: current.priceCents, upcomingPriceCents: requestedCents, upcomingPriceAt: new Date(now.getTime() + noticeDays * 86_400_000) };
}
