// /prompt-builder (create) and /applications/{slug}/edit (edit): the edit mode loads the application
// and its prompt configuration from the API before showing the builder.
import { Link, Navigate, useParams } from 'react-router';
import { ErrorBox } from '@/components/ui/error-box';
import { PageSpinner } from '@/components/ui/spinner';
import { textLink } from '@/components/ui/styles';
import { useApp } from '@/lib/api/apps/get-app';
import { usePromptConfig } from '@/lib/api/prompts/get-prompt-config';
import { ApiError, isUnauthorizedError } from '@/lib/errors';

const isNotFoundError = (error: unknown) => error instanceof ApiError && error.status === 404;

import { cardOfApp } from '@/components/pricing/rate-card-panel';
import { PromptBuilderForm } from '../components/prompt-builder-form';
import { draftFromSaved, initialDraft, LOAD_FAILED_MESSAGE } from '../lib/prompt-builder.utils';

function EditPromptBuilder({ slug }: { slug: string }) {
  const app = useApp(slug);
  const config = usePromptConfig(slug, { enabled: app.data?.type !== 'workflow' });

  if (app.data && config.data) {
    return (
      <PromptBuilderForm
        mode="edit"
        slug={app.data.slug}
        savedName={app.data.name}
        initialDraft={draftFromSaved(app.data, config.data)}
        card={app.data.pricing ? cardOfApp(app.data) : null}
      />
    );
  }
  // A workflow app is edited on its own detail page.
  if (app.data?.type === 'workflow') return <Navigate to={`/workflows/${encodeURIComponent(app.data.slug)}`} replace />;
  const failure = app.error ?? config.error;
  if (failure) {
    // A 401 is only logged (by the API client), never shown as a page error.
    if (isUnauthorizedError(failure)) return null;
    return (
      <div className="mx-auto max-w-5xl px-4 py-8 sm:px-6 lg:px-8">
        <h1 className="mb-6 text-2xl font-bold tracking-tight text-gray-900 sm:text-3xl">Edit Prompt</h1>
        <ErrorBox message={LOAD_FAILED_MESSAGE}>
          {isNotFoundError(failure) ? <p className="mt-1 text-sm text-red-700">There is no prompt application named “{slug}” in your account.</p> : null}
          <Link to="/applications" className={`${textLink} mt-3 inline-block text-sm`}>
            Back to Applications
          </Link>
        </ErrorBox>
      </div>
    );
  }
  return <PageSpinner message="Loading prompt..." />;
}

export function PromptBuilderPage({ mode }: { mode: 'create' | 'edit' }) {
  const { slug = '' } = useParams();
  if (mode === 'edit') return <EditPromptBuilder key={slug} slug={slug} />;
  return <PromptBuilderForm mode="create" initialDraft={initialDraft()} />;
}
