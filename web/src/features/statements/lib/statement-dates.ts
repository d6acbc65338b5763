// Dates of a statement. Its amounts are written by the contract's formatMinor (integer minor units
// of their own currency, never added across currencies).

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
