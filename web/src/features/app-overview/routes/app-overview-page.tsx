import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { ErrorBox } from '@/components/ui/error-box';
import { PageSpinner } from '@/components/ui/spinner';
import { primaryButton, secondaryButton } from '@/components/ui/styles';
import { useDownloadApp } from '@/lib/api/apps/download-app-frontend';
import { useAppsUsage } from '@/lib/api/apps/get-app-usage';
import { useApps } from '@/lib/api/apps/get-apps';
import { isUnauthorizedError } from '@/lib/errors';
import { formatCents } from '@/lib/format';
import { formatCount } from '@/lib/format-count';
import { ApplicationsTable } from '../components/applications-table';
import { FirstRunPanel } from '../components/first-run-panel';
import { QuickLinks } from '../components/quick-links';
import { StatCards } from '../components/stat-cards';

export const DASHBOARD_LOAD_ERROR = 'Failed to load dashboard data';

const EMPTY: never[] = [];

export function DashboardPage() {
  const apps = useApps();
  const list = apps.data ?? EMPTY;
  const usage = useAppsUsage(list.map((app) => app.slug));
  const { download, isDownloading } = useDownloadApp();

  let totalInvocations = 0;
  let totalRevenueCents = 0;
  for (const stats of usage.values()) {
    totalInvocations += stats?.total_invocations ?? 0;
    totalRevenueCents += stats?.total_revenue_cents ?? 0;
  }

  const header = (
    <div className="flex flex-col gap-4 sm:flex-row sm:items-center sm:justify-between">
      <div>
        <h1 className="text-2xl font-bold tracking-tight text-gray-900 sm:text-3xl">Applications</h1>
        <p className="mt-1 text-sm text-gray-600">Manage your applications and view performance insights.</p>
      </div>
      <div className="flex gap-3">
        <Link to="/analytics" className={secondaryButton}>
          Global Analytics
        </Link>
        <Link to="/applications/create" className={primaryButton}>
          Create Application
        </Link>
      </div>
    </div>
  );

  let body: ReactNode;
  if (apps.isError) {
    // A 401 is only logged (by the API client), never shown as a page error.
    body = isUnauthorizedError(apps.error) ? null : <ErrorBox message={DASHBOARD_LOAD_ERROR} />;
  } else if (!apps.data) {
    body = <PageSpinner message="Loading applications..." />;
  } else {
    body = (
      <div className="space-y-8">
        <StatCards
          stats={[
            { label: 'Total Applications', value: formatCount(list.length) },
            { label: 'Total Invocations', value: formatCount(totalInvocations) },
            { label: 'Total Revenue', value: formatCents(totalRevenueCents) },
          ]}
        />
        {list.length === 0 ? (
          <FirstRunPanel />
        ) : (
          <ApplicationsTable apps={list} usage={usage} onDownload={(app) => void download(app)} isDownloading={isDownloading} />
        )}
        <QuickLinks />
      </div>
    );
  }

  return (
    <div className="mx-auto max-w-7xl px-4 py-8 sm:px-6 lg:px-8">
      {header}
      <div className="mt-8">{body}</div>
    </div>
  );
}
