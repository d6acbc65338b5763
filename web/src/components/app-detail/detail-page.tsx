// What the prompt and workflow detail pages (/prompts/{slug}, /workflows/{slug}) share: the page's
// frame, its header (name, slug, description, badges, Back to List, Download App, Save Changes),
// the save's outcome, and the error shown when the app cannot be loaded.
import type { Application } from '@tollbooth/contract';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { isPlainPerCall } from '@/components/pricing/price-form.utils';
import { RateCardPanel, upcomingCardOfApp } from '@/components/pricing/rate-card-panel';
import { DownloadButton } from '@/components/ui/download-button';
import { ErrorBox } from '@/components/ui/error-box';
import { FormAlert } from '@/components/ui/form-alert';
import { primaryButton, secondaryButton, textLink } from '@/components/ui/styles';
import { useDownloadApp } from '@/lib/api/apps/download-app-frontend';

export const detailPageClass = 'mx-auto max-w-6xl px-4 py-8 sm:px-6 lg:px-8';

export function DetailHeader({
  app,
  kind,
  listPath,
  badges,
  children,
  onSave,
  saving,
}: {
  app: Application;
  /** Names the test ids: `${kind}-slug`, `${kind}-badges`. */
  kind: 'prompt' | 'workflow';
  listPath: string;
  badges: ReactNode;
  /** Below the badges (e.g. a link to the builder). */
  children?: ReactNode;
  onSave: () => void;
  saving: boolean;
}) {
  const { download, isDownloading } = useDownloadApp();
  return (
    <div className="flex flex-col gap-4 lg:flex-row lg:items-start lg:justify-between">
      <div className="min-w-0">
        <h1 className="text-2xl font-bold tracking-tight break-words text-gray-900 sm:text-3xl">{app.name}</h1>
        <p className="mt-1 font-mono text-sm text-gray-500" data-testid={`${kind}-slug`}>
          {app.slug}
        </p>
        {app.description ? <p className="mt-2 max-w-3xl text-gray-700">{app.description}</p> : null}
        <div className="mt-3 flex flex-wrap gap-2" data-testid={`${kind}-badges`}>
          {badges}
        </div>
        {children}
      </div>
      <div className="flex shrink-0 flex-wrap gap-3">
        <Link to={listPath} className={secondaryButton}>
          Back to List
        </Link>
        <DownloadButton label="Download App" busy={isDownloading(app.slug)} onClick={() => void download(app)} className={secondaryButton} />
        <button type="button" className={primaryButton} onClick={onSave} disabled={saving}>
          {saving ? 'Saving...' : 'Save Changes'}
        </button>
      </div>
    </div>
  );
}

/** The save's outcome, read out as it changes: a warning to confirm, the error, or "Changes saved". */
export function SaveOutcome({
  warning,
  warningAction,
  error,
  saved,
  children,
}: {
  warning?: string | null;
  /** What the creator can do about the warning (confirm a price below cost). */
  warningAction?: ReactNode;
  error: string | null;
  saved: boolean;
  /** Shown after the outcome (what the save means, e.g. when a new price applies). */
  children?: ReactNode;
}) {
  return (
    <div aria-live="polite" className="mt-4">
      {warning ? (
        <div role="alert" data-testid="margin-warning" className="mb-2 rounded-md bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-300">
          <p>{warning}</p>
          {warningAction}
        </div>
      ) : null}
      <FormAlert message={error} as="p" />
      {saved ? <p className="rounded-md bg-green-50 p-3 text-sm text-green-800 ring-1 ring-green-200">Changes saved</p> : null}
      {children}
    </div>
  );
}

/** The app could not be loaded (or is not of this kind): the message and the way back. */
export function DetailLoadError({ message, listPath }: { message: string; listPath: string }) {
  return (
    <div className={detailPageClass}>
      <ErrorBox title="Error" message={message}>
        <Link to={listPath} className={`${textLink} mt-3 inline-block text-sm`}>
          Back to List
        </Link>
      </ErrorBox>
    </div>
  );
}

/**
 * A detail page's Basic Settings tab: the form, given the app's rate card to show in it when the
 * app is not priced per call; under it, the announced card of an app that is; then `children`.
 */
export function BasicSettingsTab({ app, form, children }: { app: Application; form: (pricePanel: ReactNode) => ReactNode; children?: ReactNode }) {
  const plainPrice = isPlainPerCall(app.pricing);
  return (
    <>
      {form(plainPrice ? undefined : <RateCardPanel app={app} editLink className="sm:col-span-2" />)}
      {plainPrice && upcomingCardOfApp(app) ? <RateCardPanel app={app} className="mt-6 max-w-3xl" /> : null}
      {children}
    </>
  );
}
