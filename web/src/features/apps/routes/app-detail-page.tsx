import type { Application } from '@tollbooth/contract';
import { useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { EmbedSnippet } from '@/components/embed/embed-snippet';
import { PriceNotice } from '@/components/pricing/price-notice';
import { StatusBadge, TypeBadge, VisibilityBadge } from '@/components/ui/badges';
import { DownloadButton } from '@/components/ui/download-button';
import { ErrorBox } from '@/components/ui/error-box';
import { PageSpinner } from '@/components/ui/spinner';
import { primaryButton, secondaryButton, textLink } from '@/components/ui/styles';
import { TitledCard } from '@/components/ui/titled-card';
import { useDownloadApp } from '@/lib/api/apps/download-app-frontend';
import { useDuplicateApp } from '@/lib/api/apps/duplicate-app';
import { useApp } from '@/lib/api/apps/get-app';
import { usePublishableKeys } from '@/lib/api/keys/get-publishable-keys';
import { usePromptConfig } from '@/lib/api/prompts/get-prompt-config';
import { ApiError, getErrorMessage, isUnauthorizedError } from '@/lib/errors';
import { useRuntimeConfig } from '@/lib/runtime-config';
import { ApiEndpointPanel } from '../components/api-endpoint-panel';
import { AppDemoNotice, demoNoticeApplies } from '../components/app-demo-notice';
import { AppSidebar } from '../components/app-sidebar';
import { DangerZone } from '../components/danger-zone';
import { EditAppForm } from '../components/edit-app-form';
import { StatusManagement } from '../components/status-management';

export const APP_NOT_FOUND_MESSAGE = 'Application not found';

const pageClass = 'mx-auto max-w-7xl px-4 py-8 sm:px-6 lg:px-8';

function AppDetail({ app }: { app: Application }) {
  const navigate = useNavigate();
  const [editing, setEditing] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  const { download, isDownloading } = useDownloadApp();
  const duplicateApp = useDuplicateApp();
  const duplicateError = duplicateApp.error && !isUnauthorizedError(duplicateApp.error) ? getErrorMessage(duplicateApp.error) : null;
  // The owner's panels above Status Management load their own data (the demo-model notice, the embed
  // snippet's keys) and change height when it comes: the page shows once they have it, so no button
  // moves under the pointer between aiming and clicking.
  const { demo_models: demoModels } = useRuntimeConfig();
  const needsConfig = demoNoticeApplies(app, demoModels);
  const promptConfig = usePromptConfig(app.slug, { enabled: needsConfig });
  const publishableKeys = usePublishableKeys(app.is_owner);
  // Fetched once, with data or an error: a refetch (the snippet retries a failed list when it mounts) keeps the page.
  const panelsPending = (needsConfig && !promptConfig.isFetched) || (app.is_owner && !publishableKeys.isFetched);

  function closeEditor() {
    setEditing(false);
    // Focus returns to the button that opened the form once it is back in the page.
    window.requestAnimationFrame(() => editButton.current?.focus());
  }

  if (panelsPending) return <PageSpinner message="Loading application..." />;

  return (
    <div className={pageClass}>
      <Link to="/applications" className={`${textLink} text-sm`}>
        ← Back to Applications
      </Link>

      <div className="mt-4 flex flex-col gap-4 lg:flex-row lg:items-start lg:justify-between">
        <div className="min-w-0">
          <h1 className="text-2xl font-bold tracking-tight break-words text-gray-900 sm:text-3xl">{app.name}</h1>
          <p className="mt-1 font-mono text-sm text-gray-500" data-testid="app-slug">
            {app.slug}
          </p>
          {app.description ? <p className="mt-2 max-w-3xl text-gray-700">{app.description}</p> : null}
          <div className="mt-3 flex flex-wrap gap-2" data-testid="app-badges">
            <TypeBadge type={app.type} />
            <StatusBadge status={app.status} />
            <VisibilityBadge visibility={app.visibility} />
          </div>
        </div>
        <div className="flex shrink-0 flex-wrap gap-3">
          {app.is_owner ? (
            <button ref={editButton} type="button" className={secondaryButton} onClick={() => setEditing(true)} disabled={editing} aria-expanded={editing}>
              Edit
            </button>
          ) : null}
          <Link to={`/applications/${app.slug}/billing`} className={secondaryButton}>
            Billing &amp; Subscriptions
          </Link>
          <DownloadButton label="Download App" busy={isDownloading(app.slug)} onClick={() => void download(app)} className={secondaryButton} />
          {app.is_owner ? (
            <button
              type="button"
              className={primaryButton}
              disabled={duplicateApp.isPending}
              onClick={() => duplicateApp.mutate(app.slug, { onSuccess: (copy) => navigate(`/applications/${copy.slug}`) })}
            >
              {duplicateApp.isPending ? 'Duplicating...' : 'Duplicate'}
            </button>
          ) : null}
        </div>
      </div>
      {duplicateError ? (
        <p role="alert" className="mt-3 text-sm text-red-600">
          {duplicateError}
        </p>
      ) : null}
      <AppDemoNotice app={app} />
      {app.is_owner && app.status === 'draft' && app.visibility !== 'private' ? (
        // Issue 61: an app created as Public (or Embed) lands in Draft; say why, and what makes it visible.
        <p role="note" data-testid="draft-visibility-hint" className="mt-4 rounded-md bg-sky-50 p-3 text-sm text-sky-900 ring-1 ring-sky-200">
          This app is {app.visibility === 'public' ? 'Public' : 'Embed'} but still in <strong>Draft</strong>: every new app starts as a draft so you can test it
          first. {app.visibility === 'public' ? 'It appears in Explore and takes calls' : 'Its widget takes calls'} once you choose <strong>Set as Live</strong>{' '}
          under Status Management.
        </p>
      ) : null}

      <div className="mt-8 grid grid-cols-1 gap-6 lg:grid-cols-3">
        <div className="space-y-6 lg:col-span-2">
          {editing ? <EditAppForm app={app} onDone={closeEditor} /> : null}
          <PriceNotice app={app} />
          <ApiEndpointPanel app={app} />
          {app.is_owner ? (
            <>
              <TitledCard id="embed" title="Embed on your website">
                <div className="mt-4">
                  <EmbedSnippet slug={app.slug} />
                </div>
              </TitledCard>
              <StatusManagement app={app} />
              <DangerZone app={app} />
            </>
          ) : null}
        </div>
        <AppSidebar app={app} />
      </div>
    </div>
  );
}

export function AppDetailPage() {
  const { slug = '' } = useParams();
  const app = useApp(slug);

  // A 404 wins over cached data: the application was deleted since it was last loaded.
  const notFound = app.error instanceof ApiError && app.error.status === 404;
  if (app.data && !notFound) return <AppDetail key={app.data.slug} app={app.data} />;
  if (app.isError) {
    // A 401 is only logged (by the API client), never shown as a page error.
    if (isUnauthorizedError(app.error)) return null;
    return (
      <div className={pageClass}>
        {notFound ? (
          <ErrorBox title={APP_NOT_FOUND_MESSAGE} message="It may have been deleted, or the address is wrong.">
            <Link to="/applications" className={`${textLink} mt-3 inline-block text-sm`}>
              Back to Applications
            </Link>
          </ErrorBox>
        ) : (
          <ErrorBox message={getErrorMessage(app.error)} />
        )}
      </div>
    );
  }
  return <PageSpinner message="Loading application..." />;
}
