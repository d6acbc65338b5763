import type { DashboardAnalytics } from '@tollbooth/contract';
import { Link } from 'react-router';
import { Badge, typeTone } from '@/components/ui/badges';
import { formatCount, formatLastUsed, formatSeconds, formatSuccessRate } from '../lib/analytics-format.utils';

const COLUMNS = ['Application', 'Type', 'Invocations', 'Success Rate', 'Rejected', 'Avg Response Time', 'Last Used'];

export const NO_APPLICATIONS_MESSAGE = 'No applications yet: create one and its calls will show here.';
const cell = 'px-6 py-4 text-sm whitespace-nowrap text-gray-900';

/** One row per application, keyed by slug; the name links to the app's own analytics. */
export function ApplicationPerformanceTable({ applications }: { applications: DashboardAnalytics['applications'] }) {
  return (
    <section aria-label="Application Performance" className="rounded-lg bg-white shadow-sm ring-1 ring-gray-200">
      <h2 className="px-6 pt-5 pb-3 text-lg font-semibold text-gray-900">Application Performance</h2>
      <div className="overflow-x-auto">
        <table className="min-w-full divide-y divide-gray-200">
          <thead className="bg-gray-50">
            <tr>
              {COLUMNS.map((column) => (
                <th key={column} scope="col" className="px-6 py-3 text-left text-xs font-medium tracking-wider text-gray-500 uppercase">
                  {column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y divide-gray-200">
            {applications.length === 0 ? (
              <tr>
                <td colSpan={COLUMNS.length} className="px-6 py-8 text-center text-sm text-gray-600">
                  No applications yet. Each application you create appears here with its calls.
                </td>
              </tr>
            ) : null}
            {applications.map((app) => (
              <tr key={app.application_slug} data-testid={`performance-row-${app.application_slug}`}>
                <th scope="row" className="px-6 py-4 text-left text-sm font-medium whitespace-nowrap">
                  <Link to={`/applications/${app.application_slug}/analytics`} className="text-gray-900 hover:text-indigo-600">
                    {app.application_name}
                  </Link>
                </th>
                <td className={cell}>
                  <Badge tone={typeTone(app.application_type)} title="Type">
                    {app.application_type}
                  </Badge>
                </td>
                <td className={cell}>{formatCount(app.invocations)}</td>
                <td className={cell}>{formatSuccessRate(app.success_rate, app.invocations - app.rejected_count)}</td>
                <td className={cell}>{formatCount(app.rejected_count)}</td>
                <td className={cell}>{formatSeconds(app.avg_response_time, 3)}</td>
                <td className={cell}>{formatLastUsed(app.last_used)}</td>
              </tr>
            ))}
            {applications.length === 0 ? (
              <tr>
                <td colSpan={COLUMNS.length} className="px-6 py-4 text-sm text-gray-600">
                  {NO_APPLICATIONS_MESSAGE}
                </td>
              </tr>
            ) : null}
          </tbody>
        </table>
      </div>
    </section>
  );
}
