// How figures are written: milliseconds from microseconds, counts, MiB, host steal, Markdown tables.
import type { ThroughputResult } from './measure.ts';

/** The table cell of a steal share: "4.2 %", or "-" where it is unknown. */
export const stealCell = (share: number | null) => (share === null ? '-' : `${(100 * share).toFixed(1)} %`);
/** ", host steal 4.2 %" for a phase line, or nothing where it is unknown. */
export const stealText = (share: number | null) => (share === null ? '' : `, host steal ${stealCell(share)}`);

export const ms = (us: number) => (us / 1000).toFixed(3);
export const signedMs = (us: number) => `${us >= 0 ? '+' : ''}${(us / 1000).toFixed(3)}`;
export const int = (value: number) => Math.round(value).toLocaleString('en-US');
export const mib = (kib: number) => (kib / 1024).toFixed(1);

/** A Markdown table: the first `textColumns` columns left-aligned, the others (figures) right-aligned. */
export function table(headers: string[], rows: (string | number)[][], textColumns = 1): string {
  const cells = rows.map((row) => row.map(String));
  const widths = headers.map((header, i) => Math.max(header.length, ...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) => `| ${row.map((cell, i) => (i < textColumns ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(' | ')} |`;
  return [line(headers), `|${widths.map((w, i) => (i < textColumns ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...cells.map(line)].join(
    '\n',
  );
}

/** The rounds of a run that compares sides window by window: one row per window (with each side's server CPU per call when `cpu`). */
export function roundsTable(results: { round: number; side: { name: string }; result: ThroughputResult }[], { cpu }: { cpu: boolean }): string {
  return table(
    ['round', 'side', 'calls/s', 'p50 ms', 'p99 ms', 'errors', ...(cpu ? ['CPU ms per call'] : []), 'host steal'],
    results.map(({ round, side, result }) => [
      round,
      side.name,
      int(result.perSecond),
      ms(result.p50),
      ms(result.p99),
      result.errors,
      ...(cpu ? [result.cpuMsPerCall.server?.toFixed(3) ?? '-'] : []),
      stealCell(result.steal),
    ]),
    2,
  );
}
