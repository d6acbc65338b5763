// CSV for the analytics exports and the monthly statements: RFC 4180 (comma separated, CRLF line ends, fields quoted when
// they hold a comma, a quote or a line break, quotes doubled). Text cells that a spreadsheet
// would run as a formula (starting with = + - @ or a tab or carriage return) get a leading
// apostrophe: end-user ids come from API callers, and the export is opened by the app's owner.

export type CsvCell = string | number | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A header row and the data rows, each line ending in CRLF. */
export function toCsv(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  return [header, ...rows].map((row) => `${row.map(csvCell).join(',')}\r\n`).join('');
}
