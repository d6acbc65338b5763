// Amounts of a statement: integer minor units of their own currency, written in that currency with
// Intl.NumberFormat (cents for USD and EUR, whole yen and dong for JPY and VND). Never added across currencies.
import { minorToMajor } from '@tollbooth/contract';

const formats = new Map<string, Intl.NumberFormat>();

export function formatMinor(minor: number, currency: string): string {
  const code = currency.toUpperCase();
  let format = formats.get(code);
  if (!format) {
    try {
      format = new Intl.NumberFormat('en-US', { style: 'currency', currency: code });
    } catch {
      return `${minorToMajor(minor, currency)} ${code}`;
    }
    formats.set(code, format);
  }
  // -0 would print as "-$0.00".
  return format.format(minorToMajor(minor, currency) || 0);
}

/** "2026-11" → "November 2026" (the month is UTC; so is its name). */
export function monthName(month: string): string {
  const [year, index] = month.split('-').map(Number);
  if (!year || !index) return month;
  return new Date(Date.UTC(year, index - 1, 1)).toLocaleDateString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });
}

/** A date of the statement as a UTC day: statements are per UTC month. */
export function utcDay(value: string | null): string {
  if (!value) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? '—' : date.toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });
}
