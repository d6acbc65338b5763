// /prompt-builder (create) and /applications/{slug}/edit (edit): the edit mode loads the application
// and its prompt configuration from the API before showing the builder.
import { useParams } from 'react-router';
import { ErrorBox } from '@/components/ui/error-box';
import { PageSpinner } from '@/components/ui/spinner';
import { useApp } from '@/lib/api/apps/get-app';
import { usePromptConfig } from '@/lib/api/prompts/get-prompt-config';
import { isUnauthorizedError } from '@/lib/errors';
import { PromptBuilderForm } from '../components/prompt-builder-form';
import { draftFromSaved, initialDraft, LOAD_FAILED_MESSAGE } from '../lib/prompt-builder.utils';

function EditPromptBuilder({ slug }: { slug: string }) {
  const app = useApp(slug);
  const config = usePromptConfig(slug, { enabled: app.data?.type !== 'workflow' });

  if (app.data && config.data) {
    return <PromptBuilderForm mode="edit" slug={app.data.slug} savedName={app.data.name} initialDraft={draftFromSaved(app.data, config.data)} />;
  }
  const failure = app.error ?? config.error ?? (app.data?.type === 'workflow' ? new Error('Not a prompt application') : null);
  if (failure) {
    // A 401 is only logged (by the API client), never shown as a page error.
    if (isUnauthorizedError(failure)) return null;
    return (
      <div className="mx-auto max-w-5xl px-4 py-8 sm:px-6 lg:px-8">
        <ErrorBox message={LOAD_FAILED_MESSAGE} />
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
