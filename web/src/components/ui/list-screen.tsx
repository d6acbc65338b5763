// The shared frame of the prompt and workflow lists: the full list from GET /api/app/, filtered on
// the client by type, then by the Visibility and Status selects (kept in the query string).

import type { Application, AppType } from '@tollbooth/contract';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { useDownloadApp } from '@/lib/api/apps/download-app-frontend';
import { useApps } from '@/lib/api/apps/get-apps';
import { useAuth } from '@/lib/auth/use-auth';
import { getErrorMessage, isUnauthorizedError } from '@/lib/errors';
import { filterApps } from '@/lib/filter-apps';
import { useAppFilters } from '@/lib/use-app-filters';
import { AppFilters } from './app-filters';
import { ErrorBox } from './error-box';
import { PageSpinner } from './spinner';
import { primaryButton } from './styles';

export interface AppCardProps {
  app: Application;
  downloading: boolean;
  onDownload: () => void;
}

interface AppListScreenProps {
  type: AppType;
  title: string;
  subtitle: string;
  loggedOutMessage: string;
  loadingMessage: string;
  empty: { title: string; text: string; filteredText: string; linkLabel: string };
  renderCard: (props: AppCardProps) => ReactNode;
}

export function AppListScreen({ type, title, subtitle, loggedOutMessage, loadingMessage, empty, renderCard }: AppListScreenProps) {
  // The route is guarded; the message covers the screen being shown to an anonymous visitor anyway.
  const { status } = useAuth();
  const signedIn = status === 'authenticated';
  const apps = useApps({ enabled: signedIn });
  const [filters, setFilters] = useAppFilters();
  const { download, isDownloading } = useDownloadApp();

  let body: ReactNode;
  if (!signedIn) {
    body = <p className="rounded-md bg-yellow-50 p-4 text-sm text-yellow-800 ring-1 ring-yellow-200">{loggedOutMessage}</p>;
  } else if (apps.isError) {
    // A 401 is only logged (by the API client), never shown as a page error.
    body = isUnauthorizedError(apps.error) ? null : <ErrorBox message={getErrorMessage(apps.error)} />;
  } else if (!apps.data) {
    body = <PageSpinner message={loadingMessage} />;
  } else {
    const shown = filterApps(apps.data, type, filters);
    const filtered = Boolean(filters.visibility || filters.status);
    body =
      shown.length === 0 ? (
        <div className="rounded-lg border-2 border-dashed border-gray-300 bg-white px-6 py-12 text-center">
          <h2 className="text-sm font-semibold text-gray-900">{empty.title}</h2>
          <p className="mt-1 text-sm text-gray-500">{filtered ? empty.filteredText : empty.text}</p>
          <Link to={`/applications/create?type=${type}`} className={`${primaryButton} mt-6`}>
            {empty.linkLabel}
          </Link>
        </div>
      ) : (
        <ul className="grid grid-cols-1 gap-6 md:grid-cols-2 lg:grid-cols-3" aria-label={title}>
          {shown.map((app) => (
            <li key={app.id} className="flex">
              {renderCard({ app, downloading: isDownloading(app.slug), onDownload: () => void download(app) })}
            </li>
          ))}
        </ul>
      );
  }

  return (
    <div className="mx-auto max-w-7xl px-4 py-8 sm:px-6 lg:px-8">
      <h1 className="text-2xl font-bold tracking-tight text-gray-900 sm:text-3xl">{title}</h1>
      <p className="mt-1 text-sm text-gray-600">{subtitle}</p>
      {signedIn ? (
        <div className="mt-6">
          <AppFilters value={filters} onChange={setFilters} />
        </div>
      ) : null}
      <div className="mt-6">{body}</div>
    </div>
  );
}
