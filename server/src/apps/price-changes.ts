// The price-change rule: a decrease applies at once; an increase reaches callers only after the
// notice period (PRICE_INCREASE_NOTICE_DAYS), shown meanwhile as the upcoming price and its date.
// For a rate card (issue 60) an increase is any change that makes some call cost more (pricing.ts
// costsMore). The notice protects the app's callers and subscribers (decision 0110): an app that
// was never live, or that nobody but its owner called in the last notice period and that has no
// subscriber, has nobody to protect, so any change to it applies at once.
import type { RateCard } from '@tollbooth/contract';
import type { StoredPrice } from './pricing.ts';

export interface PriceState {
  /** Price in force now. */
  priceCents: number;
  pricing: RateCard | null;
  upcomingPriceCents: number | null;
  upcomingPricing: RateCard | null;
  upcomingPriceAt: Date | null;
}

export function planPriceChange(
  current: StoredPrice & { wentLiveAt: Date | null },
  requested: StoredPrice,
  /** Some call costs more under the requested price. */
  increase: boolean,
  noticeDays: number,
  now = new Date(),
  /** Someone other than the owner called the app in the last notice period, or subscribes to it. */
  hasCallers = true,
): PriceState {
  if (!increase || current.wentLiveAt === null || noticeDays === 0 || !hasCallers) {
    return { priceCents: requested.priceCents, pricing: requested.pricing, upcomingPriceCents: null, upcomingPricing: null, upcomingPriceAt: null };
  }
  return {
    priceCents: current.priceCents,
    pricing: current.pricing,
    upcomingPriceCents: requested.priceCents,
    upcomingPricing: requested.pricing,
    upcomingPriceAt: new Date(now.getTime() + noticeDays * 86_400_000),
  };
}
