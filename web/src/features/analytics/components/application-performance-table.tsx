import type { DashboardAnalytics } from '@tollbooth/contract';
import { Link } from 'react-router';
import { Badge, typeTone } from '@/components/ui/badges';
import { DataTable } from '@/components/ui/data-table';
import { formatCount, formatLastUsed, formatSeconds, formatSuccessRate } from '../lib/analytics-format.utils';

export const NO_APPLICATIONS_MESSAGE = 'No applications yet: create one and its calls will show here.';

/** One row per application, keyed by slug; the name links to the app's own analytics. */
export function ApplicationPerformanceTable({ applications }: { applications: DashboardAnalytics['applications'] }) {
  return (
    <section aria-label="Application Performance" className="rounded-lg bg-white shadow-sm ring-1 ring-gray-200">
      <h2 className="px-6 pt-5 pb-3 text-lg font-semibold text-gray-900">Application Performance</h2>
      <DataTable
        look="report"
        rows={applications}
        rowKey={(app) => app.application_slug}
        rowTestId={(app) => `performance-row-${app.application_slug}`}
        empty="No applications yet. Each application you create appears here with its calls."
        columns={[
          {
            label: 'Application',
            rowHeader: true,
            className: 'font-medium',
            cell: (app) => (
              <Link to={`/applications/${app.application_slug}/analytics`} className="text-gray-900 hover:text-indigo-600">
                {app.application_name}
              </Link>
            ),
          },
          {
            label: 'Type',
            cell: (app) => (
              <Badge tone={typeTone(app.application_type)} title="Type">
                {app.application_type}
              </Badge>
            ),
          },
          { label: 'Invocations', cell: (app) => formatCount(app.invocations) },
          { label: 'Success Rate', cell: (app) => formatSuccessRate(app.success_rate, app.invocations - app.rejected_count) },
          { label: 'Rejected', cell: (app) => formatCount(app.rejected_count) },
          { label: 'Avg Response Time', cell: (app) => formatSeconds(app.avg_response_time, 3) },
          { label: 'Last Used', cell: (app) => formatLastUsed(app.last_used) },
        ]}
      >
        {applications.length === 0 ? (
          <tr>
            <td colSpan={7} className="px-6 py-4 text-sm text-gray-600">
              {NO_APPLICATIONS_MESSAGE}
            </td>
          </tr>
        ) : null}
      </DataTable>
    </section>
  );
}
