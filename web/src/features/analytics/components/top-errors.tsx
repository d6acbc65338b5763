import type { DashboardAnalytics } from '@tollbooth/contract';
import { Cell, Pie, PieChart, ResponsiveContainer, Tooltip } from 'recharts';
import { formatCount } from '../lib/analytics-format.utils';
import { errorSliceLabel, errorSlices, PIE_HEIGHT } from '../lib/chart.utils';

/** Top Errors: a pie (height 200) labelled with name and percent, and the list of groups. */
export function TopErrors({ errors }: { errors: DashboardAnalytics['errors'] }) {
  const slices = errorSlices(errors);
  return (
    <section aria-label="Top Errors" className="rounded-lg bg-white p-5 shadow-sm ring-1 ring-gray-200">
      <h2 className="mb-4 text-lg font-semibold text-gray-900">Top Errors</h2>
      <div className="grid grid-cols-1 items-center gap-6 md:grid-cols-2">
        <ResponsiveContainer width="100%" height={PIE_HEIGHT} initialDimension={{ width: 400, height: PIE_HEIGHT }}>
          <PieChart>
            <Pie data={slices} dataKey="value" nameKey="name" outerRadius={70} label={errorSliceLabel} isAnimationActive={false}>
              {slices.map((slice) => (
                <Cell key={slice.name} fill={slice.color} />
              ))}
            </Pie>
            <Tooltip formatter={(value) => formatCount(Number(value))} />
          </PieChart>
        </ResponsiveContainer>
        <ul className="space-y-2">
          {slices.map((slice) => (
            <li key={slice.name} className="flex items-center justify-between gap-4 text-sm" data-testid="error-group">
              <span className="flex items-center gap-2">
                <span aria-hidden="true" className="inline-block h-3 w-3 rounded-full" style={{ backgroundColor: slice.color }} data-color={slice.color} />
                <span className="text-gray-900">{slice.name}</span>
              </span>
              <span className="font-medium text-gray-700">{formatCount(slice.value)}</span>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}
