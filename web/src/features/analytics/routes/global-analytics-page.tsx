import type { DashboardAnalytics } from '@tollbooth/contract';
import { type ReactNode, useState } from 'react';
import { useDashboardAnalytics } from '../api/get-dashboard-analytics';
import { AnalyticsError, AnalyticsLoading, NoAnalyticsData } from '../components/analytics-states';
import { ApplicationPerformanceTable } from '../components/application-performance-table';
import { PeriodSelector } from '../components/period-selector';
import { RejectedCalls } from '../components/rejected-calls';
import { StatCardGrid } from '../components/stat-card-grid';
import { TimeSeriesChart } from '../components/time-series-chart';
import { TopErrors } from '../components/top-errors';
import { formatCount, formatSuccessRate } from '../lib/analytics-format.utils';
import { type AnalyticsPeriod, DEFAULT_PERIOD, GLOBAL_CHARTS } from '../lib/chart.utils';

function Dashboard({ data }: { data: DashboardAnalytics }) {
  return (
    <div className="space-y-8">
      <StatCardGrid
        label="Summary"
        cards={[
          { label: 'Applications', value: formatCount(data.overview.total_applications) },
          { label: 'Total Invocations', value: formatCount(data.overview.total_invocations) },
          { label: 'Active Users', value: formatCount(data.overview.total_users) },
          { label: 'Success Rate', value: formatSuccessRate(data.overview.success_rate, data.overview.total_invocations - data.overview.rejected_count) },
        ]}
      />
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        {GLOBAL_CHARTS.map((definition) => (
          <TimeSeriesChart key={definition.title} definition={definition} data={data.time_series.data} />
        ))}
      </div>
      <ApplicationPerformanceTable applications={data.applications} />
      {data.errors.length > 0 ? <TopErrors errors={data.errors} /> : null}
      <RejectedCalls rejections={data.rejections} total={data.overview.rejected_count} />
    </div>
  );
}

/** Global Analytics (/analytics): every application of the signed-in user over 7, 30 or 90 days. */
export function GlobalAnalyticsPage() {
  const [days, setDays] = useState<AnalyticsPeriod>(DEFAULT_PERIOD);
  const dashboard = useDashboardAnalytics(days);

  let body: ReactNode;
  if (dashboard.isError) body = <AnalyticsError error={dashboard.error} />;
  else if (dashboard.isPending) body = <AnalyticsLoading />;
  else if (!dashboard.data) body = <NoAnalyticsData />;
  else body = <Dashboard data={dashboard.data} />;

  return (
    <div className="mx-auto max-w-7xl px-4 py-8 sm:px-6 lg:px-8">
      <div className="flex flex-col gap-4 sm:flex-row sm:items-center sm:justify-between">
        <div>
          <h1 className="text-2xl font-bold tracking-tight text-gray-900 sm:text-3xl">Global Analytics</h1>
          <p className="mt-1 text-sm text-gray-600">Comprehensive analytics and insights across all your applications.</p>
        </div>
        <PeriodSelector value={days} onChange={setDays} />
      </div>
      <div className="mt-8">{body}</div>
    </div>
  );
}
