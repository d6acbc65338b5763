import { Link } from 'react-router';
import { ModeBadge, StatusBadge, VisibilityBadge } from '@/components/ui/badges';
import { DownloadButton } from '@/components/ui/download-button';
import type { AppCardProps } from '@/components/ui/list-screen';
import { secondaryButton } from '@/components/ui/styles';
import { formatCents } from '@/lib/format';

export function PromptCard({ app, downloading, onDownload }: AppCardProps) {
  return (
    <article className="relative flex w-full flex-col rounded-lg bg-white p-5 shadow-sm ring-1 ring-gray-200 focus-within:ring-2 focus-within:ring-indigo-500 hover:shadow-md">
      <h2 className="text-lg font-semibold text-gray-900">
        {/* The stretched link makes the whole card open the prompt. */}
        <Link to={`/prompts/${app.slug}`} className="focus:outline-none">
          <span aria-hidden="true" className="absolute inset-0" />
          {app.name}
        </Link>
      </h2>
      <p className="mt-1 line-clamp-3 text-sm text-gray-600">{app.description || 'No description'}</p>
      <div className="mt-3 flex flex-wrap gap-2">
        <ModeBadge mode={app.interaction_mode} />
        <VisibilityBadge visibility={app.visibility} />
        <StatusBadge status={app.status} />
      </div>
      <div className="mt-auto flex items-end justify-between gap-3 pt-4">
        <div className="text-sm">
          <p className="text-gray-500">Created by {app.creator_name}</p>
          <p className="mt-1 font-semibold text-gray-900">
            {formatCents(app.price_cents)}
            <span className="font-normal text-gray-500"> per call</span>
          </p>
        </div>
        {/* Above the stretched link so it stays clickable. */}
        <DownloadButton busy={downloading} onClick={onDownload} className={`${secondaryButton} relative`} />
      </div>
    </article>
  );
}
