// The price-change rule: a decrease applies at once; an increase reaches callers only after the
// notice period (PRICE_INCREASE_NOTICE_DAYS), shown meanwhile as the upcoming price and its date.
// The notice protects the app's callers and subscribers (decision 0110): an app that was never live,
// or that nobody but its owner called in the last notice period and that has no subscriber, has
// nobody to protect, so any change to it applies at once.

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
  /** Someone other than the owner called the app in the last notice period, or subscribes to it. */
  hasCallers = true,
): PriceState {
  if (requestedCents <= current.priceCents || current.wentLiveAt === null || noticeDays === 0 || !hasCallers) {
    return { priceCents: requestedCents, upcomingPriceCents: null, upcomingPriceAt: null };
  }
  return { priceCents: current.priceCents, upcomingPriceCents: requestedCents, upcomingPriceAt: new Date(now.getTime() + noticeDays * 86_400_000) };
}
