// Kept without Intl for whole numbers: a page's first Intl.NumberFormat costs 35–55 ms of main
// thread (see format.ts); the dashboard's figures are whole numbers.
let counts: Intl.NumberFormat | undefined;

/** en-US thousands separators for a string of digits: "1234567" → "1,234,567". */
export function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A whole number with thousands separators: 12345 → "12,345". Same text as Intl's en-US format. */
export function formatCount(value: number): string {
  if (Number.isSafeInteger(value) && !Object.is(value, -0)) {
    const text = groupThousands(String(Math.abs(value)));
    return value < 0 ? `-${text}` : text;
  }
  counts ??= new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
  return counts.format(value);
}
