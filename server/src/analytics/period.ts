// Periods and units of the analytics answers: a period is the last N UTC days ending today;
// success rates are percent with two decimals, response times seconds with millisecond precision,
// money dollars computed from integer cents.

const DAY_MS = 86_400_000;

/** ISO day (UTC) strings, oldest first, for the last `days` days ending today. */
export function periodDays(days: number, now = new Date()): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) => new Date(today - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10));
}

export interface Period {
  /** Every ISO day of the period, oldest first. */
  days: string[];
  /** The first day (inclusive). */
  start: string;
  /** Today, UTC (inclusive). */
  end: string;
}

export function analyticsPeriod(days: number, now = new Date()): Period {
  const list = periodDays(days, now);
  return { days: list, start: list[0]!, end: list.at(-1)! };
}

export const centsToDollars = (cents: number) => Math.round(cents) / 100;

/** part / whole in percent, two decimals; 0 when whole is 0. */
export const percent = (part: number, whole: number) => (whole > 0 ? Math.round((part * 10_000) / whole) / 100 : 0);

/** A mean of integer milliseconds in seconds, rounded to the millisecond; 0 without calls. */
export const meanSeconds = (totalMs: number, count: number) => (count > 0 ? Math.round(totalMs / count) / 1000 : 0);

export const msToSeconds = (ms: number) => Math.round(ms) / 1000;
