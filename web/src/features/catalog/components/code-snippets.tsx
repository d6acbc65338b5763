import type { CatalogSnippets } from '@tollbooth/contract';
import { useState } from 'react';
import { secondaryButton } from '@/components/ui/styles';
import { Tabs } from '@/components/ui/tabs';

const LANGUAGES = [
  { id: 'curl', label: 'curl' },
  { id: 'javascript', label: 'JavaScript' },
  { id: 'python', label: 'Python' },
  { id: 'dify_sdk', label: 'Dify SDK' },
  { id: 'openai_sdk', label: 'OpenAI SDK' },
] as const;
type Language = (typeof LANGUAGES)[number]['id'];

const SETUP: Record<Language, string> = {
  curl: 'Paste into a shell.',
  javascript: 'Save as call.mjs and run with node call.mjs (Node 18+), or paste into a browser console.',
  python: 'pip install requests, then run with python3.',
  dify_sdk: 'npm install dify-client, save as call.mjs and run with node call.mjs.',
  openai_sdk: 'npm install openai, save as call.mjs and run with node call.mjs.',
};

function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch {
      setCopied(false);
    }
  }
  return (
    <button type="button" className={`${secondaryButton} px-3 py-1 text-xs`} onClick={() => void copy()} aria-label={`Copy ${label} snippet`}>
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

/** The copy-ready snippets; YOUR_API_KEY is the one thing to replace. */
export function CodeSnippets({ snippets }: { snippets: CatalogSnippets }) {
  const [language, setLanguage] = useState<Language>('curl');
  return (
    <Tabs
      label="Code snippets"
      selected={language}
      onSelect={setLanguage}
      tabs={LANGUAGES.map(({ id, label }) => ({
        id,
        label,
        content: (
          <div className="mt-3">
            <div className="flex items-center justify-between gap-3">
              <p className="text-xs text-gray-500">{SETUP[id]}</p>
              <CopyButton text={snippets[id]} label={label} />
            </div>
            <pre data-testid={`snippet-${id}`} className="mt-2 max-h-96 overflow-auto rounded-md bg-gray-900 p-4 text-xs leading-relaxed text-gray-100">
              <code>{snippets[id]}</code>
            </pre>
          </div>
        ),
      }))}
    />
  );
}
