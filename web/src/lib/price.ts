// Prices as the forms read them (spec section 5): money is integer cents; every price field is typed
// in dollars with its "$x.xx per call" preview (issue 61: the create form and the workflow page read
// cents while the builder read dollars, so "5" meant 5¢ on one screen and $5 on the next).
import { formatCents } from '@tollbooth/contract';

export { DEFAULT_PRICE_CENTS } from '@tollbooth/contract';

export const MIN_PRICE_CENTS = 1;

export const PRICE_TOO_LOW_MESSAGE = 'Price must be at least $0.01.';

export const centsToDollars = (cents: number) => (cents / 100).toFixed(2);

/** A price in cents as "$x.xx" ("" for none), for a button that names the price it confirms. */
export const formatPrice = (cents: number | null) => (cents === null ? '' : formatCents(cents));

/**
 * A price field in dollars as integer cents, rounded. The decimal point is moved in the number's
 * text so that 2.675 becomes 268 (2.675 * 100 is 267.49999… in binary floating point). Non-numeric
 * input is 0.
 */
export function dollarsToCents(dollars: string): number {
  const value = Number(dollars.trim());
  if (dollars.trim() === '' || !Number.isFinite(value)) return 0;
  const shifted = Number(`${value}e2`);
  return Math.round(Number.isFinite(shifted) ? shifted : value * 100);
}

/** Above this price per call (the default, $1.00), a price asks to be confirmed when nothing says a call costs near it (decision 0125). */
export const HIGH_PRICE_CENTS = 100;
/** A price this many times a call's model cost (or more) is far above it. */
export const FAR_ABOVE_COST_RATIO = 100;

const micros = (value: number) => (value >= 100 ? `$${(value / 1_000_000).toFixed(4)}` : `$${(value / 1_000_000).toPrecision(2)}`);

/**
 * A price far above what a call costs: above $1.00, and (when the app's model cost per call is
 * known, in micro-dollars) at least 100 times it. Typing "5" meaning 5¢ gives $5.00, which asks.
 */
export function priceFarAboveCost(priceCents: number, costMicros: number | null): boolean {
  if (priceCents <= HIGH_PRICE_CENTS) return false;
  return costMicros === null || priceCents * 10_000 >= FAR_ABOVE_COST_RATIO * costMicros;
}

/** What the confirmation of a price far above the cost says, with the price it may have meant (the same number in cents). */
export function highPriceWarning(priceCents: number, costMicros: number | null): string {
  const cost = costMicros === null ? 'Most apps charge a few cents a call' : `A call's model cost is about ${micros(costMicros)}`;
  const meant = priceCents / 100;
  const hint = Number.isInteger(meant) && meant >= 1 ? ` Prices are in dollars: did you mean ${meant}¢ (${formatCents(meant)})?` : ' Prices are in dollars.';
  return `${formatCents(priceCents)} per call is far above what a call costs. ${cost}.${hint}`;
}
