import type { Application } from '@tollbooth/contract';
import { useId } from 'react';
import { inputField } from '@/components/ui/styles';

interface AppPickerProps {
  /** The signed-in user's apps; null for anonymous visitors, who only get the slug input. */
  apps: Application[] | null;
  slug: string;
  onSlugChange: (slug: string) => void;
  apiKey: string;
  onApiKeyChange: (apiKey: string) => void;
  stream: boolean;
  onStreamChange: (stream: boolean) => void;
}

/** Which app to call, as whom, and how: the app dropdown, the slug, the optional API key and the stream toggle. */
export function AppPicker({ apps, slug, onSlugChange, apiKey, onApiKeyChange, stream, onStreamChange }: AppPickerProps) {
  const id = useId();
  const selected = apps?.some((app) => app.slug === slug) ? slug : '';
  return (
    <section aria-label="Application selection" className="space-y-4 rounded-lg bg-white p-6 shadow-sm ring-1 ring-gray-200">
      {apps ? (
        <div>
          <label htmlFor={`${id}-app`} className="block text-sm font-medium text-gray-700">
            Application
          </label>
          <select id={`${id}-app`} value={selected} onChange={(event) => onSlugChange(event.target.value)} className={`${inputField} mt-1`}>
            <option value="">Select an application...</option>
            {apps.map((app) => (
              <option key={app.id} value={app.slug}>
                {`${app.name} (${app.type})`}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      <div>
        <label htmlFor={`${id}-slug`} className="block text-sm font-medium text-gray-700">
          App Slug
        </label>
        <input
          id={`${id}-slug`}
          type="text"
          value={slug}
          onChange={(event) => onSlugChange(event.target.value)}
          placeholder="my-app"
          autoComplete="off"
          spellCheck={false}
          className={`${inputField} mt-1 font-mono`}
        />
      </div>
      <div>
        <label htmlFor={`${id}-key`} className="block text-sm font-medium text-gray-700">
          API Key
        </label>
        <input
          id={`${id}-key`}
          type="password"
          value={apiKey}
          onChange={(event) => onApiKeyChange(event.target.value)}
          placeholder="tb_..."
          autoComplete="off"
          spellCheck={false}
          aria-describedby={`${id}-key-hint`}
          className={`${inputField} mt-1 font-mono`}
        />
        <p id={`${id}-key-hint`} className="mt-1 text-sm text-gray-500">
          {apps ? 'Optional: calls are made with this key instead of your session.' : 'Calls are made with this key, which pays for them.'}
        </p>
      </div>
      <div className="flex items-center gap-2">
        <input
          id={`${id}-stream`}
          type="checkbox"
          checked={stream}
          onChange={(event) => onStreamChange(event.target.checked)}
          className="h-4 w-4 rounded border-gray-300 text-indigo-600 focus:ring-indigo-600"
        />
        <label htmlFor={`${id}-stream`} className="text-sm text-gray-700">
          Stream response
        </label>
      </div>
    </section>
  );
}
