// A titled table of the operator page, in the analytics tables' style (the shared DataTable).
import { type DataColumn, DataTable } from '@/components/ui/data-table';

export type MoneyColumn<Row> = DataColumn<Row>;

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
      <DataTable look="report-tight" rows={rows} columns={columns} rowKey={rowKey} empty={empty} />
    </section>
  );
}
