// Kept without Intl for whole numbers: a page's first Intl.NumberFormat costs 35–55 ms of main
// thread (see contract/src/currency.ts); the dashboard's figures are whole numbers.
import { groupThousands } from '@tollbooth/contract';

export { groupThousands };

let counts: Intl.NumberFormat | undefined;

/** A whole number with thousands separators: 12345 → "12,345". Same text as Intl's en-US format. */
export function formatCount(value: number): string {
  if (Number.isSafeInteger(value) && !Object.is(value, -0)) {
    const text = groupThousands(String(Math.abs(value)));
    return value < 0 ? `-${text}` : text;
  }
  counts ??= new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
  return counts.format(value);
}
