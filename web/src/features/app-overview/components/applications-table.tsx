import type { Application, UsageAnalytics } from '@tollbooth/contract';
import { Link } from 'react-router';
import { StatusBadge, TypeBadge } from '@/components/ui/badges';
import { DownloadButton } from '@/components/ui/download-button';
import { analyticsLink, manageLink } from '@/lib/app-endpoint';
import { formatCents } from '@/lib/format';
import { formatCount } from '@/lib/format-count';

const actionLink =
  'rounded-sm font-medium text-indigo-600 hover:text-indigo-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600';
const nameLink =
  'block rounded-sm text-sm font-medium text-gray-900 hover:text-indigo-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600';
const actionButton = `${actionLink} disabled:cursor-not-allowed disabled:text-gray-400`;

// On a phone the table keeps Name, Status and Actions, so every action is on screen without
// scrolling sideways; Type, Invocations and Revenue join from the md breakpoint.
const wideOnly = 'hidden md:table-cell';
const COLUMNS = [
  { name: 'Name', wide: false },
  { name: 'Type', wide: true },
  { name: 'Status', wide: false },
  { name: 'Invocations', wide: true },
  { name: 'Revenue', wide: true },
  { name: 'Actions', wide: false },
];
const cell = 'px-3 py-4 sm:px-6';

interface ApplicationsTableProps {
  apps: Application[];
  usage: Map<string, UsageAnalytics | undefined>;
  onDownload: (app: Application) => void;
  isDownloading: (slug: string) => boolean;
}

export function ApplicationsTable({ apps, usage, onDownload, isDownloading }: ApplicationsTableProps) {
  return (
    <div className="overflow-x-auto rounded-lg bg-white shadow-sm ring-1 ring-gray-200">
      <table className="min-w-full divide-y divide-gray-200">
        <thead className="bg-gray-50">
          <tr>
            {COLUMNS.map(({ name, wide }) => (
              <th
                key={name}
                scope="col"
                className={`${wide ? wideOnly : ''} px-3 py-3 text-left text-xs font-medium tracking-wider text-gray-600 uppercase sm:px-6`}
              >
                {name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-gray-200">
          {apps.map((app) => {
            const stats = usage.get(app.slug);
            const manage = manageLink(app);
            return (
              <tr key={app.id} data-testid={`app-row-${app.slug}`}>
                <th scope="row" className={`${cell} text-left font-normal break-words md:whitespace-nowrap`}>
                  <Link to={`/applications/${app.slug}`} className={nameLink}>
                    {app.name}
                  </Link>
                  <span className="block font-mono text-sm break-all text-gray-600">{app.slug}</span>
                </th>
                <td className={`${cell} ${wideOnly} whitespace-nowrap`}>
                  <TypeBadge type={app.type} />
                </td>
                <td className={`${cell} whitespace-nowrap`}>
                  <StatusBadge status={app.status} />
                </td>
                <td className={`${cell} ${wideOnly} text-sm whitespace-nowrap text-gray-900`}>{stats ? formatCount(stats.total_invocations) : '—'}</td>
                <td className={`${cell} ${wideOnly} text-sm whitespace-nowrap text-gray-900`}>{stats ? formatCents(stats.total_revenue_cents) : '—'}</td>
                <td className={`${cell} text-sm`}>
                  <div className="flex flex-col items-start gap-2 sm:flex-row sm:items-center sm:gap-4 sm:whitespace-nowrap">
                    <Link to={manage.to} className={actionLink}>
                      {manage.label}
                    </Link>
                    <DownloadButton busy={isDownloading(app.slug)} onClick={() => onDownload(app)} className={actionButton} />
                    <Link to={analyticsLink(app.slug)} className={actionLink}>
                      Analytics
                    </Link>
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
