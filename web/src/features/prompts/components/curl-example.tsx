import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { secondaryButton, textLink } from '@/components/ui/styles';
import { TitledCard } from '@/components/ui/titled-card';
import { API_KEY_PLACEHOLDER, buildCurlCommand } from '../lib/curl-example';

interface CurlExampleProps {
  slug: string;
  inputs: Record<string, unknown>;
  /** False before the prompt is saved: the endpoint exists only afterwards. */
  saved: boolean;
}

export function CurlExample({ slug, inputs, saved }: CurlExampleProps) {
  const command = buildCurlCommand({ origin: window.location.origin, slug: slug || 'your-prompt', inputs });
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);

  useEffect(() => {
    if (!copied) return;
    const timer = window.setTimeout(() => setCopied(null), 2000);
    return () => window.clearTimeout(timer);
  }, [copied]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(command);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  }

  return (
    <TitledCard
      id="curl-example"
      title="API Example"
      small
      action={
        <button type="button" className={secondaryButton} onClick={() => void copy()}>
          {copied === 'yes' ? 'Copied!' : 'Copy'}
        </button>
      }
    >
      {/* Wrapped rather than scrolled sideways: all of it readable on a phone, no scroll region to reach by keyboard. */}
      <pre className="mt-3 rounded-md bg-gray-900 px-4 py-3 font-mono text-sm break-all whitespace-pre-wrap text-gray-100">
        <code data-testid="curl-example">{command}</code>
      </pre>
      <p className="mt-2 text-sm text-gray-600">
        Replace <code className="font-mono">{API_KEY_PLACEHOLDER}</code> with one of your API keys.{' '}
        <Link to="/profile" className={textLink}>
          Create an API key on your profile
        </Link>
        .
      </p>
      {saved ? null : <p className="mt-1 text-sm text-gray-600">The endpoint answers once the prompt is saved.</p>}
      {copied === 'failed' ? (
        <p role="alert" className="mt-1 text-sm text-red-600">
          Could not copy to the clipboard; select the command and copy it.
        </p>
      ) : null}
    </TitledCard>
  );
}
