import { Link } from 'react-router';
import { StatusBadge, TypeBadge, VisibilityBadge } from '@/components/ui/badges';
import { DownloadButton } from '@/components/ui/download-button';
import type { AppCardProps } from '@/components/ui/list-screen';
import { secondaryButton, textLink } from '@/components/ui/styles';
import { analyticsLink } from '@/lib/app-endpoint';
import { formatCents } from '@/lib/format';

export function WorkflowCard({ app, downloading, onDownload }: AppCardProps) {
  return (
    <article className="flex w-full flex-col rounded-lg bg-white p-5 shadow-sm ring-1 ring-gray-200">
      <h2 className="text-lg font-semibold text-gray-900">{app.name}</h2>
      <p className="font-mono text-sm text-gray-500">{app.slug}</p>
      <p className="mt-2 line-clamp-3 text-sm text-gray-600">{app.description || 'No description'}</p>
      <div className="mt-3 flex flex-wrap gap-2">
        <TypeBadge type={app.type} />
        <StatusBadge status={app.status} />
        <VisibilityBadge visibility={app.visibility} />
      </div>
      <p className="mt-3 text-sm">
        <span className="font-semibold text-gray-900">{formatCents(app.price_cents)}</span>
        <span className="text-gray-500"> per call</span>
      </p>
      <div className="mt-auto flex flex-wrap items-center gap-4 pt-4 text-sm">
        <Link to={`/workflows/${app.slug}`} className={textLink}>
          Manage
        </Link>
        <Link to={analyticsLink(app.slug)} className={textLink}>
          Analytics
        </Link>
        <DownloadButton busy={downloading} onClick={onDownload} className={`${secondaryButton} ml-auto`} />
      </div>
    </article>
  );
}
