// Number and date formats shared by every screen (spec section 9).
import { currencyDecimals } from '@tollbooth/contract';
import { groupThousands } from './format-count';

// Built on first use: a page's first Intl.NumberFormat loads the browser's number-format data,
// 35–55 ms of main thread here (~200 ms on Lighthouse's 4x slower phone), so whole cents are
// written out below without it and the dashboard's first render never builds one
// (docs/decisions/0020-web-delivery.md, "Update (issue 15, dashboard)").
let dollars: Intl.NumberFormat | undefined;
function dollarFormat(): Intl.NumberFormat {
  dollars ??= new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return dollars;
}

/** Integer cents as dollars with two decimals: 100 → "$1.00". Same text as Intl's en-US USD format. */
export function formatCents(cents: number): string {
  const rounded = Math.round(cents);
  // Whole cents are exact in integer arithmetic. -0, NaN, infinities and amounts from $10 trillion
  // up (where cents / 100 is no longer exact as a double, so Intl's text differs) go to Intl.
  if (Number.isInteger(rounded) && Math.abs(rounded) < 1e15 && !Object.is(rounded, -0)) {
    const magnitude = Math.abs(rounded);
    const text = `$${groupThousands(String(Math.floor(magnitude / 100)))}.${String(magnitude % 100).padStart(2, '0')}`;
    return rounded < 0 ? `-${text}` : text;
  }
  return dollarFormat().format(rounded / 100);
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
 * An amount in integer minor units of its currency, in that currency's own unit and symbol:
 * (2500, 'usd') → "$25.00", (100000, 'vnd') → "₫100,000", (1500, 'jpy') → "¥1,500", (950, 'eur')
 * → "€9.50". Zero-decimal currencies have no minor unit below the whole amount, so they are never
 * divided by 100; amounts in different currencies are never added (decision 0035).
 */
export function formatMinor(minor: number, currency: string): string {
  const code = currency.toLowerCase();
  if (code === 'usd') return formatCents(minor);
  const decimals = currencyDecimals(code) ?? 2;
  const major = decimals === 0 ? minor : minor / 100;
  try {
    return new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency: code.toUpperCase(),
      minimumFractionDigits: decimals,
      maximumFractionDigits: decimals,
    }).format(major);
  } catch {
    return `${major.toFixed(decimals)} ${code.toUpperCase()}`;
  }
}
