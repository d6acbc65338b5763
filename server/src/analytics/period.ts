/** ISO day (UTC) strings, oldest first, for the last `days` days ending today. */
export function periodDays(days: number, now = new Date()): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) => new Date(today - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

export const centsToDollars = (cents: number) => Math.round(cents) / 100;
