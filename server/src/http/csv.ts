// CSV for the analytics exports and the monthly statements: RFC 4180 (comma separated, CRLF line ends, fields quoted when
// they hold a comma, a quote or a line break, quotes doubled). Text cells that a spreadsheet
// would run as a formula (starting with = + - @ or a tab or carriage return) get a leading
// apostrophe: end-user ids come from API callers, and the export is opened by the app's owner.

import { PassThrough, type Readable } from 'node:stream';

export type CsvCell = string | number | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const csvLine = (row: readonly CsvCell[]) => `${row.map(csvCell).join(',')}\r\n`;

/**
 * A CSV body written while it is read: the header, then each batch `produce` pushes. A push waits
 * while the client is slower than the database (the stream's buffer is full), so only a batch at a
 * time is held; it rejects once the client has gone, which ends `produce` and its reading. The body
 * is handed over once the first batch is read (or `produce` ends without one): a failure before that
 * rejects, so the answer is a plain error (a 503 for a statement timeout); a failure after it cuts the
 * body short (the status went with the first line) and is told to `onError`.
 */
export function csvStream(
  header: readonly string[],
  produce: (push: (rows: readonly (readonly CsvCell[])[]) => Promise<void>) => Promise<void>,
  onError: (error: unknown) => void = () => undefined,
): Promise<Readable> {
  const out = new PassThrough();
  out.write(csvLine(header));
  return new Promise<Readable>((resolve, reject) => {
    let started = false;
    const start = () => {
      if (started) return;
      started = true;
      resolve(out);
    };
    const push = async (rows: readonly (readonly CsvCell[])[]) => {
      if (out.destroyed) throw new Error('the client stopped reading the export');
      const flowing = out.write(rows.map(csvLine).join(''));
      start();
      if (flowing) return;
      await new Promise<void>((resolveDrain, rejectDrain) => {
        const done = (error?: Error) => {
          out.off('drain', onDrain);
          out.off('close', onClose);
          if (error) rejectDrain(error);
          else resolveDrain();
        };
        const onDrain = () => done();
        const onClose = () => done(new Error('the client stopped reading the export'));
        out.on('drain', onDrain);
        out.on('close', onClose);
      });
    };
    produce(push).then(
      () => {
        start();
        out.end();
      },
      (error: unknown) => {
        if (!started) {
          out.destroy();
          reject(error);
          return;
        }
        if (!out.destroyed) onError(error);
        out.destroy(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** A header row and the data rows, each line ending in CRLF. */
export function toCsv(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  return [header, ...rows].map(csvLine).join('');
}
