// An app's rate card as every screen shows it (issue 60): the card the API gives, or today's
// whole-cent price per call for an answer without one. The words are the contract's
// (rateCardSummary, rateCardLines), the same the server writes in an app's OpenAPI document.
import { perCallCard, type RateCard, rateCardLines, rateCardSummary } from '@tollbooth/contract';
import { formatDate } from './format';

interface Priced {
  price_cents: number;
  pricing?: RateCard;
  upcoming_price_cents: number | null;
  upcoming_price_at: string | null;
  upcoming_pricing?: RateCard | null;
}

/** The card in force now. */
export const rateCardNow = (app: Pick<Priced, 'price_cents' | 'pricing'>): RateCard => app.pricing ?? perCallCard(app.price_cents);

/** The announced card and when it applies, or null when none is announced. */
export function upcomingRateCard(app: Priced): { card: RateCard; at: string } | null {
  if (app.upcoming_price_cents === null || !app.upcoming_price_at) return null;
  return { card: app.upcoming_pricing ?? perCallCard(app.upcoming_price_cents), at: app.upcoming_price_at };
}

/** Whether calls cost nothing at all. */
export const isFreeCard = (card: RateCard) => card.form === 'per_call' && card.call_micros === 0 && card.minimum_micros === 0;

/** One line: "Free", "$0.05 per call", "$2.00 in / $8.00 out per million tokens". */
export const priceSummary = (card: RateCard) => (isFreeCard(card) ? 'Free' : rateCardSummary(card));

/** The card line by line ("Free" for a free app). */
export const priceLines = (card: RateCard) => (isFreeCard(card) ? ['Free'] : rateCardLines(card));

/** An announced card in one line: "$0.10 per call from 1/1/2030". */
export function upcomingPriceSummary(app: Priced): string | null {
  const upcoming = upcomingRateCard(app);
  return upcoming ? `${priceSummary(upcoming.card)} from ${formatDate(upcoming.at)}` : null;
}
