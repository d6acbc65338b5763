// "Embed on your website": the one-line snippet filled in with one of the signed-in user's
// publishable keys that may call this app. Shown on the owner's app page and on Explore.
import { useId, useState } from 'react';
import { Link } from 'react-router';
import { secondaryButton, textLink } from '@/components/ui/styles';
import { usePublishableKeys } from '@/lib/api/keys/get-publishable-keys';
import { getErrorMessage, isUnauthorizedError } from '@/lib/errors';
import { buildEmbedSnippet } from './embed-snippet.utils';

const selectClass = 'rounded-md border-0 py-1.5 pr-8 pl-3 text-sm text-gray-900 ring-1 ring-gray-300 ring-inset focus:ring-2 focus:ring-indigo-600';

export function EmbedSnippet({ slug }: { slug: string }) {
  const id = useId();
  const keys = usePublishableKeys();
  const [chosen, setChosen] = useState('');
  const [mode, setMode] = useState<'bubble' | 'inline'>('bubble');
  const [theme, setTheme] = useState<'light' | 'dark'>('light');
  const [copied, setCopied] = useState(false);

  if (keys.isError)
    return isUnauthorizedError(keys.error) ? null : <p className="text-sm text-red-700">Failed to load your publishable keys: {getErrorMessage(keys.error)}</p>;
  if (!keys.data) return <p className="text-sm text-gray-500">Loading your publishable keys…</p>;
  const usable = keys.data.filter((key) => key.publishable?.app_slugs.includes(slug));
  if (usable.length === 0) {
    return (
      <p className="text-sm text-gray-600">
        Put this app on your website with a publishable key: create one for <code className="font-mono">{slug}</code> and your site's origin on your{' '}
        <Link to="/profile" className={textLink}>
          profile
        </Link>
        . Calls from the widget are paid from your credits, within the key's daily and monthly caps.
      </p>
    );
  }
  const key = usable.find((candidate) => candidate.id === chosen) ?? usable[0]!;
  const snippet = buildEmbedSnippet({ origin: window.location.origin, slug, publishableKey: key.publishable!.key, mode, theme });

  async function copy() {
    try {
      await navigator.clipboard.writeText(snippet);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  }

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-3 text-sm">
        <label htmlFor={`${id}-key`} className="font-medium text-gray-700">
          Publishable key
        </label>
        <select id={`${id}-key`} className={selectClass} value={key.id} onChange={(event) => setChosen(event.target.value)}>
          {usable.map((candidate) => (
            <option key={candidate.id} value={candidate.id}>
              {candidate.name} ({candidate.publishable!.allowed_origins.join(', ')})
            </option>
          ))}
        </select>
        <label htmlFor={`${id}-mode`} className="font-medium text-gray-700">
          Style
        </label>
        <select id={`${id}-mode`} className={selectClass} value={mode} onChange={(event) => setMode(event.target.value as 'bubble' | 'inline')}>
          <option value="bubble">Chat bubble</option>
          <option value="inline">Inline frame</option>
        </select>
        <label htmlFor={`${id}-theme`} className="font-medium text-gray-700">
          Theme
        </label>
        <select id={`${id}-theme`} className={selectClass} value={theme} onChange={(event) => setTheme(event.target.value as 'light' | 'dark')}>
          <option value="light">Light</option>
          <option value="dark">Dark</option>
        </select>
      </div>
      <pre className="overflow-x-auto rounded-md bg-gray-900 p-3 text-xs text-gray-100" data-testid="embed-snippet">
        {snippet}
      </pre>
      <div className="flex flex-wrap items-center gap-3">
        <button type="button" className={`${secondaryButton} px-3 py-1 text-xs`} onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy snippet'}
        </button>
        <p className="text-xs text-gray-500">
          Paste it into a page on {key.publishable!.allowed_origins.join(' or ')}: the widget shows only there, and each answer is paid from your credits.
        </p>
      </div>
    </div>
  );
}
