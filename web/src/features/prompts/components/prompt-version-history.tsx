import type { PromptVersion } from '@tollbooth/contract';
import { secondaryButton } from '@/components/ui/styles';
import { formatDateTime } from '@/lib/format';
import type { PromptVersionList } from '../api/prompt-versions';
import { diffVersions, keyedLines } from '../lib/version-diff';

interface PromptVersionHistoryProps {
  versions: PromptVersionList | undefined;
  loading: boolean;
  onRollback: (version: number) => void;
  rollingBack: number | null;
  error: string | null;
}

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

/** Numbered versions of the prompt, newest first, each compared with the active one; rollback activates an earlier one. */
export function PromptVersionHistory({ versions, loading, onRollback, rollingBack, error }: PromptVersionHistoryProps) {
  const active = versions?.versions.find((version) => version.version === versions.active_version);
  return (
    <div className="max-w-4xl">
      <h2 className="text-lg font-semibold text-gray-900">Version History</h2>
      <p className="mt-1 text-sm text-gray-600">
        A save that changes the prompt or its schemas makes a new version. Rolling back makes an earlier version active again.
      </p>
      {error ? (
        <p role="alert" className="mt-4 rounded-md bg-red-50 p-3 text-sm text-red-700 ring-1 ring-red-200">
          {error}
        </p>
      ) : null}
      {loading || !versions ? (
        <p className="mt-4 text-sm text-gray-600">Loading versions...</p>
      ) : (
        <ol className="mt-4 divide-y divide-gray-100 rounded-md ring-1 ring-gray-200">
          {versions.versions.map((version) => {
            const isActive = version.version === versions.active_version;
            return (
              <li key={version.version} className="p-4" data-testid={`prompt-version-${version.version}`}>
                <div className="flex flex-wrap items-center justify-between gap-3">
                  <div className="min-w-0">
                    <p className="text-sm font-semibold text-gray-900">
                      Version {version.version}
                      {isActive ? <span className="ml-2 rounded-full bg-green-100 px-2 py-0.5 text-xs font-medium text-green-800">Active</span> : null}
                    </p>
                    <p className="text-sm text-gray-700">{version.changelog || 'No changelog'}</p>
                    <p className="text-xs text-gray-600">{formatDateTime(version.created_at)}</p>
                  </div>
                  <button
                    type="button"
                    className={secondaryButton}
                    disabled={isActive || rollingBack !== null}
                    onClick={() => onRollback(version.version)}
                    aria-label={`Roll back to version ${version.version}`}
                  >
                    {rollingBack === version.version ? 'Rolling back...' : 'Roll back'}
                  </button>
                </div>
                {!isActive && active ? <VersionDiff active={active} version={version} /> : null}
              </li>
            );
          })}
        </ol>
      )}
    </div>
  );
}
