import type { PromptVersion } from '@tollbooth/contract';
import { VersionHistory, type VersionHistoryProps } from '@/components/app-detail/version-history';
import { formatDateTime } from '@/lib/format';
import { diffVersions, keyedLines } from '../lib/version-diff';

const lineTone = { same: 'text-gray-700', added: 'bg-green-50 text-green-900', removed: 'bg-red-50 text-red-900' } as const;
const linePrefix = { same: '  ', added: '+ ', removed: '- ' } as const;

function VersionDiff({ active, version }: { active: PromptVersion; version: PromptVersion }) {
  const fields = diffVersions(active, version);
  if (fields.length === 0) return <p className="mt-2 text-sm text-gray-600">Same prompt and schemas as the active version.</p>;
  return (
    <details className="mt-2">
      <summary className="cursor-pointer text-sm font-medium text-indigo-700">Compare with active version {active.version}</summary>
      <div className="mt-2 space-y-3">
        {fields.map(({ field, lines }) => (
          <div key={field}>
            <p className="text-xs font-semibold tracking-wide text-gray-600 uppercase">{field}</p>
            <pre
              className="mt-1 rounded-md bg-white p-2 font-mono text-xs break-words whitespace-pre-wrap ring-1 ring-gray-200"
              data-testid={`diff-${version.version}`}
            >
              {keyedLines(lines).map((line) => (
                <span key={line.key} className={`block ${lineTone[line.kind]}`}>
                  <span aria-hidden="true">{linePrefix[line.kind]}</span>
                  <span className="sr-only">{line.kind === 'same' ? '' : `${line.kind}: `}</span>
                  {line.text}
                </span>
              ))}
            </pre>
          </div>
        ))}
      </div>
    </details>
  );
}

const meta = (version: PromptVersion) => <p className="text-xs text-gray-600">{formatDateTime(version.created_at)}</p>;
const below = (version: PromptVersion, active: PromptVersion | undefined) => (active ? <VersionDiff active={active} version={version} /> : null);

const layout = {
  intro: 'A save that changes the prompt or its schemas makes a new version. Rolling back makes an earlier version active again.',
  testIdPrefix: 'prompt-version',
  meta,
  below,
};

/** Numbered versions of the prompt, newest first, each compared with the active one; rollback activates an earlier one. */
export function PromptVersionHistory(props: VersionHistoryProps<PromptVersion>) {
  return <VersionHistory {...props} {...layout} />;
}
