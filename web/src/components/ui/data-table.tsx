// The one data table of the web app: columns described once (a heading and how a row fills its
// cell), rows keyed, in one of the looks the screens use. The statements, the key tables, the
// invocations and performance lists, the operator's and the money page's tables are all this.
import type { ReactNode } from 'react';

export interface DataColumn<Row> {
  /** The heading, also the column's key. */
  label: string;
  cell: (row: Row) => ReactNode;
  /** Numbers: right-aligned, in tabular figures. */
  numeric?: boolean;
  /** The heading is for screen readers only (a column of buttons). */
  hiddenLabel?: boolean;
  /** Classes added to this column's cells. */
  className?: string;
  /** The cell names its row (a <th scope="row">). */
  rowHeader?: boolean;
}

/**
 * The looks: `ledger` (statements and money lists: plain rows on a card), `compact` (the key
 * tables), `report` (analytics: a grey heading row in small capitals), `report-tight` (the same
 * with narrower cells, the operator page).
 */
export type DataTableLook = 'ledger' | 'compact' | 'report' | 'report-tight';

const LOOKS: Record<DataTableLook, { table: string; thead: string; th: string; td: string; tbody: string; empty: string }> = {
  ledger: {
    table: 'w-full text-left text-sm',
    thead: 'text-gray-500',
    th: 'py-2 pr-4 font-medium',
    td: 'py-2 pr-4',
    tbody: 'divide-y divide-gray-200',
    empty: 'py-6 text-center text-sm text-gray-600',
  },
  compact: {
    table: 'min-w-full divide-y divide-gray-200 text-sm',
    thead: '',
    th: 'px-3 py-2 font-medium whitespace-nowrap text-gray-500',
    td: 'px-3 py-2',
    tbody: 'divide-y divide-gray-100',
    empty: 'px-3 py-6 text-center text-sm text-gray-500',
  },
  report: {
    table: 'min-w-full divide-y divide-gray-200',
    thead: 'bg-gray-50',
    th: 'px-6 py-3 text-xs font-medium tracking-wider text-gray-500 uppercase',
    td: 'px-6 py-4 text-sm whitespace-nowrap text-gray-900',
    tbody: 'divide-y divide-gray-200',
    empty: 'px-6 py-8 text-center text-sm text-gray-600',
  },
  'report-tight': {
    table: 'min-w-full divide-y divide-gray-200',
    thead: 'bg-gray-50',
    th: 'px-4 py-3 text-xs font-medium tracking-wider text-gray-500 uppercase',
    td: 'px-4 py-3 text-sm whitespace-nowrap text-gray-900',
    tbody: 'divide-y divide-gray-200',
    empty: 'px-4 py-6 text-center text-sm text-gray-600',
  },
};

const join = (...classes: (string | false | undefined)[]) => classes.filter(Boolean).join(' ');

export function DataTable<Row>({
  look,
  columns,
  rows,
  rowKey,
  rowTestId,
  empty,
  children,
  className,
  scrollLabel,
}: {
  look: DataTableLook;
  /** NoInfer: the rows say what a row is; the columns are checked against it. */
  columns: readonly DataColumn<NoInfer<Row>>[];
  rows: readonly Row[];
  rowKey: (row: NoInfer<Row>, index: number) => string | number;
  /** A data-testid for each row. */
  rowTestId?: (row: NoInfer<Row>) => string;
  /** Shown in one wide row when there are no rows. */
  empty?: ReactNode;
  /** Rows of their own after the data rows (e.g. one spanning several columns). */
  children?: ReactNode;
  /** Classes for the scrolling box around the table. */
  className?: string;
  /**
   * Names the scrolling box and lets the keyboard focus and scroll it (axe
   * scrollable-region-focusable): for a table wider than the screen, such as the recent invocations.
   */
  scrollLabel?: string;
}) {
  const styles = LOOKS[look];
  return (
    <div
      className={join('overflow-x-auto', scrollLabel && 'focus-visible:outline-2 focus-visible:outline-indigo-600', className)}
      {...(scrollLabel ? { role: 'region', 'aria-label': scrollLabel, tabIndex: 0 } : {})}
    >
      <table className={styles.table}>
        <thead className={styles.thead || undefined}>
          <tr>
            {columns.map((column) => (
              <th key={column.label} scope="col" className={join(styles.th, column.numeric ? 'text-right' : 'text-left')}>
                {column.hiddenLabel ? <span className="sr-only">{column.label}</span> : column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className={styles.tbody}>
          {rows.length === 0 && empty !== undefined ? (
            <tr>
              <td colSpan={columns.length} className={styles.empty}>
                {empty}
              </td>
            </tr>
          ) : null}
          {rows.map((row, index) => (
            <tr key={rowKey(row, index)} data-testid={rowTestId?.(row)}>
              {columns.map((column) => {
                const cellClass = join(styles.td, column.numeric && 'text-right tabular-nums', column.className);
                return column.rowHeader ? (
                  <th key={column.label} scope="row" className={join(cellClass, 'text-left')}>
                    {column.cell(row)}
                  </th>
                ) : (
                  <td key={column.label} className={cellClass}>
                    {column.cell(row)}
                  </td>
                );
              })}
            </tr>
          ))}
          {children}
        </tbody>
      </table>
    </div>
  );
}
