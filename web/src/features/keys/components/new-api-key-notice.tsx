import type { ApiKeyCreated } from '@tollbooth/contract';
import { useEffect, useState } from 'react';
import { ErrorLine } from '@/components/ui/form-alert';
import { secondaryButton } from '@/components/ui/styles';

export const COPY_KEY_WARNING = "Copy this key now. You won't be able to see it again.";
const COPIED_FEEDBACK_MS = 2000;

/** The full key, shown once right after it was created: only its hash is stored. */
export function NewApiKeyNotice({ created, onDismiss }: { created: ApiKeyCreated; onDismiss: () => void }) {
  const [copy, setCopy] = useState<'idle' | 'copied' | 'failed'>('idle');

  useEffect(() => {
    if (copy !== 'copied') return;
    const timer = window.setTimeout(() => setCopy('idle'), COPIED_FEEDBACK_MS);
    return () => window.clearTimeout(timer);
  }, [copy]);

  async function copyKey() {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopy('copied');
    } catch {
      // No clipboard access (an insecure origin, or permission refused): the key stays selectable.
      setCopy('failed');
    }
  }

  return (
    <div className="rounded-md bg-yellow-50 p-4 ring-1 ring-yellow-300" data-testid="new-api-key-notice">
      <p className="text-sm font-semibold text-yellow-900">API key "{created.name}" created</p>
      <p className="mt-1 text-sm text-yellow-800">{COPY_KEY_WARNING}</p>
      <div className="mt-3 flex flex-wrap items-center gap-3">
        <code
          className="min-w-0 flex-1 rounded bg-white px-3 py-2 font-mono text-sm break-all text-gray-900 ring-1 ring-yellow-200 select-all"
          data-testid="new-api-key"
        >
          {created.key}
        </code>
        <button type="button" className={secondaryButton} onClick={() => void copyKey()}>
          {copy === 'copied' ? 'Copied!' : 'Copy'}
        </button>
        <button type="button" className={secondaryButton} onClick={onDismiss}>
          Done
        </button>
      </div>
      {copy === 'failed' ? <ErrorLine margin="mt-2">Could not copy automatically. Select the key and copy it by hand.</ErrorLine> : null}
    </div>
  );
}
