// A titled table of the operator page, in the analytics tables' style.
import type { ReactNode } from 'react';

export interface MoneyColumn<Row> {
  label: string;
  cell: (row: Row) => ReactNode;
  /** Numbers are right-aligned. */
  numeric?: boolean;
}

const head = 'px-4 py-3 text-xs font-medium tracking-wider text-gray-500 uppercase';
const body = 'px-4 py-3 text-sm whitespace-nowrap text-gray-900';

export function MoneyTable<Row>({
  title,
  rows,
  columns,
  rowKey,
  empty,
}: {
  title: string;
  rows: readonly Row[];
  columns: MoneyColumn<Row>[];
  rowKey: (row: Row) => string;
  empty: string;
}) {
  return (
    <section aria-label={title} className="rounded-lg bg-white shadow-sm ring-1 ring-gray-200">
      <h2 className="px-4 pt-5 pb-3 text-lg font-semibold text-gray-900">{title}</h2>
      <div className="overflow-x-auto">
        <table className="min-w-full divide-y divide-gray-200">
          <thead className="bg-gray-50">
            <tr>
              {columns.map((column) => (
                <th key={column.label} scope="col" className={`${head} ${column.numeric ? 'text-right' : 'text-left'}`}>
                  {column.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y divide-gray-200">
            {rows.length === 0 ? (
              <tr>
                <td colSpan={columns.length} className="px-4 py-6 text-center text-sm text-gray-600">
                  {empty}
                </td>
              </tr>
            ) : null}
            {rows.map((row) => (
              <tr key={rowKey(row)}>
                {columns.map((column) => (
                  <td key={column.label} className={`${body} ${column.numeric ? 'text-right tabular-nums' : ''}`}>
                    {column.cell(row)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
