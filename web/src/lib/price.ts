// Prices as the forms read them (spec section 5): money is integer cents; a form's price field is
// text in an explicit unit (cents in the create and edit forms, dollars in the prompt builder).
export { DEFAULT_PRICE_CENTS } from '@tollbooth/contract';

export const MIN_PRICE_CENTS = 1;

export const PRICE_TOO_LOW_MESSAGE = 'Price must be at least 1 cent.';

/** A price field in cents as integer cents; a non-numeric value becomes 0. */
export function parsePriceCents(value: string): number {
  const number = Number(value.trim());
  return Number.isFinite(number) ? Math.round(number) : 0;
}

export const centsToDollars = (cents: number) => (cents / 100).toFixed(2);

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
