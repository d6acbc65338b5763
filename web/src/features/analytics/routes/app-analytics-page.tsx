import type { Application, PerformanceAnalytics, RecentInvocations, UsageAnalytics } from '@tollbooth/contract';
import { type ReactNode, useState } from 'react';
import { Link, useParams } from 'react-router';
import { textLink } from '@/components/ui/styles';
import { useApp } from '@/lib/api/apps/get-app';
import { formatMinor } from '@/lib/format';
import { useAppPerformance, useAppUsageAnalytics } from '../api/get-app-analytics';
import { useAppInvocations } from '../api/get-app-invocations';
import { AnalyticsError, AnalyticsLoading, NoAnalyticsData } from '../components/analytics-states';
import { CsvExportButtons } from '../components/csv-export-buttons';
import { PeriodSelector } from '../components/period-selector';
import { RecentInvocationsTable } from '../components/recent-invocations-table';
import { RejectedCalls } from '../components/rejected-calls';
import { StatCardGrid } from '../components/stat-card-grid';
import { TimeSeriesChart } from '../components/time-series-chart';
import { TopErrors } from '../components/top-errors';
import { formatCount, formatModelCost, formatRevenue, formatSeconds, formatSuccessRate } from '../lib/analytics-format.utils';
import { type AnalyticsPeriod, APP_CHARTS, DEFAULT_PERIOD, joinAppSeries } from '../lib/chart.utils';

/** What Unique Users counts, so that it agrees with the "Anonymous" rows of Recent Invocations (issue 25). */
export const UNIQUE_USERS_HINT = 'Each end user a call named (user), and each calling account for calls that named none (Anonymous below)';

const pageClass = 'mx-auto max-w-7xl px-4 py-8 sm:px-6 lg:px-8';

interface AppAnalyticsProps {
  usage: UsageAnalytics;
  performance: PerformanceAnalytics;
  invocations: RecentInvocations;
}

function AppAnalytics({ usage, performance, invocations }: AppAnalyticsProps) {
  const series = joinAppSeries(usage.data, performance.data);
  return (
    <div className="space-y-8">
      <StatCardGrid
        label="Statistics"
        cards={[
          { label: 'Total Invocations', value: formatCount(usage.total_invocations) },
          {
            label: 'Unique Users',
            value: formatCount(usage.total_users),
            // The list below says Anonymous for a call that named no end user; such calls count once per calling account.
            hint: UNIQUE_USERS_HINT,
          },
          {
            label: 'Success Rate',
            // Calls that succeeded or failed: every call but the rejected ones.
            value: formatSuccessRate(performance.success_rate, usage.total_invocations - performance.rejected_count),
          },
          { label: 'Avg Response Time', value: formatSeconds(performance.average_response_time, 2) },
        ]}
      />
      <StatCardGrid
        label="Revenue and margin"
        cards={[
          { label: 'Revenue', value: formatRevenue(usage.total_revenue) },
          { label: 'Platform Fee', value: formatRevenue(usage.total_platform_fee_cents / 100) },
          { label: 'Model Cost', value: formatModelCost(usage.total_model_cost) },
          { label: 'Margin', value: formatModelCost(usage.total_net) },
        ]}
      />
      {(usage.other_currency_revenue ?? []).length > 0 ? (
        <p className="text-sm text-gray-600" data-testid="other-currency-revenue">
          Subscriptions paid in other currencies, kept apart (not converted, not in the figures above):{' '}
          {usage.other_currency_revenue.map((r) => formatMinor(r.amount_minor, r.currency)).join(' · ')}
        </p>
      ) : null}
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        {APP_CHARTS.map((definition) => (
          <TimeSeriesChart key={definition.title} definition={definition} data={series} />
        ))}
      </div>
      {performance.errors.length > 0 ? <TopErrors errors={performance.errors} /> : null}
      <RejectedCalls rejections={performance.rejections} total={performance.rejected_count} />
      <RecentInvocationsTable invocations={invocations} />
    </div>
  );
}

function Header({
  app,
  slug,
  days,
  onPeriod,
}: {
  app: Application | undefined;
  slug: string;
  days: AnalyticsPeriod;
  onPeriod: (days: AnalyticsPeriod) => void;
}) {
  return (
    <>
      <Link to={`/applications/${encodeURIComponent(slug)}`} className={`${textLink} text-sm`}>
        ← Back to Application
      </Link>
      <div className="mt-4 flex flex-col gap-4 lg:flex-row lg:items-start lg:justify-between">
        <div className="min-w-0">
          <h1 className="text-2xl font-bold tracking-tight break-words text-gray-900 sm:text-3xl">{app ? `${app.name} Analytics` : 'Analytics'}</h1>
          {app ? (
            <p className="mt-1 text-sm text-gray-600">
              {app.name} · {app.type}
            </p>
          ) : null}
        </div>
        <div className="flex flex-col gap-3 sm:items-end">
          <PeriodSelector value={days} onChange={onPeriod} />
          {app ? <CsvExportButtons slug={app.slug} days={days} /> : null}
        </div>
      </div>
    </>
  );
}

/** Per-application analytics (/applications/{slug}/analytics): loads the app, then its usage, performance and recent calls together. */
export function AppAnalyticsPage() {
  const { slug = '' } = useParams();
  const [days, setDays] = useState<AnalyticsPeriod>(DEFAULT_PERIOD);
  const app = useApp(slug);
  const enabled = app.isSuccess;
  const usage = useAppUsageAnalytics(slug, days, { enabled });
  const performance = useAppPerformance(slug, days, { enabled });
  const invocations = useAppInvocations(slug, { enabled });

  const failed = [app, usage, performance, invocations].find((query) => query.isError);
  let body: ReactNode;
  if (failed) body = <AnalyticsError error={failed.error} />;
  else if (app.isPending || usage.isPending || performance.isPending || invocations.isPending) body = <AnalyticsLoading />;
  else if (!usage.data || !performance.data) body = <NoAnalyticsData />;
  else body = <AppAnalytics usage={usage.data} performance={performance.data} invocations={invocations.data ?? []} />;

  return (
    <div className={pageClass}>
      <Header app={app.data} slug={slug} days={days} onPeriod={setDays} />
      <div className="mt-8">{body}</div>
    </div>
  );
}
