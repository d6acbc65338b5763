import { describe, expect, it } from 'vitest';
import { type CsvCell, csvCell, toCsv } from './csv.ts';

/** Each value and the cell csvCell writes for it. */
const expectCells = (cells: [CsvCell, string][]) => {
  for (const [value, cell] of cells) expect(csvCell(value), String(value)).toBe(cell);
};

describe('csv', () => {
  it('quotes only when needed and doubles quotes', () => {
    expectCells([
      ['plain', 'plain'],
      ['a,b', '"a,b"'],
      ['say "hi"', '"say ""hi"""'],
      ['two\nlines', '"two\nlines"'],
      [1.5, '1.5'],
      [null, ''],
      [undefined, ''],
      [Number.NaN, ''],
    ]);
  });

  it('defuses text a spreadsheet would run as a formula', () => {
    expectCells([
      ['=1+1', "'=1+1"],
      ['+1', "'+1"],
      ['-1', "'-1"],
      ['@SUM(A1)', "'@SUM(A1)"],
      ['\tx', "'\tx"],
      [-1, '-1'],
    ]);
  });

  it('writes a header row and CRLF line ends', () => {
    expect(
      toCsv(
        ['a', 'b'],
        [
          [1, 'x'],
          [2, null],
        ],
      ),
    ).toBe('a,b\r\n1,x\r\n2,\r\n');
    expect(toCsv(['a'], [])).toBe('a\r\n');
  });
});
