const counts = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** A whole number with thousands separators: 12345 → "12,345". */
export function formatCount(value: number): string {
  return counts.format(value);
}
