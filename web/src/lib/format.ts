// Number and date formats shared by every screen (spec section 9).
import { formatCents } from '@tollbooth/contract';

// Money in minor units is written by the contract's formatters (contract/src/currency.ts), one for
// the web and the server; re-exported here beside the other formats.
export { formatCents, formatMinor } from '@tollbooth/contract';

let dollars: Intl.NumberFormat | undefined;
function dollarFormat(): Intl.NumberFormat {
  dollars ??= new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return dollars;
}

/** A dollar amount with two decimals: 5 → "$5.00". */
export function formatDollars(amount: number): string {
  return dollarFormat().format(amount);
}

/** An ISO timestamp as a local date, or "N/A" when it is missing or not a date. */
export function formatDate(value: string | null | undefined, fallback = 'N/A'): string {
  if (!value) return fallback;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? fallback : date.toLocaleDateString();
}

/** An ISO timestamp as a local date and time, or the fallback. */
export function formatDateTime(value: string | null | undefined, fallback = 'N/A'): string {
  if (!value) return fallback;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? fallback : date.toLocaleString();
}

/** An app's announced price increase, e.g. "$5.00 from 12/1/2026", or null when none is announced. */
export function formatUpcomingPrice(app: { upcoming_price_cents: number | null; upcoming_price_at: string | null }): string | null {
  if (app.upcoming_price_cents === null || !app.upcoming_price_at) return null;
  return `${formatCents(app.upcoming_price_cents)} from ${formatDate(app.upcoming_price_at)}`;
}

/**
 * A model cost in dollars, kept to the micro-dollar: at least two decimals, at most six, no trailing
 * zeros beyond two (0.01762 → "$0.01762", 1.5 → "$1.50"); negative margins keep their sign.
 */
export function formatModelCost(value: number): string {
  const fixed = Math.abs(value)
    .toFixed(6)
    .replace(/(\.\d\d\d*?)0+$/, '$1');
  return `${value < 0 ? '−' : ''}$${fixed}`;
}
