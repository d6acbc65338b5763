// An app's version history on its detail page, prompt or workflow alike: numbered versions, newest
// first, the active one marked, each with its changelog and a Roll back button. Each kind says what a
// version is (`intro`), what a row adds (`meta`: when, and for a workflow its settings) and what
// shows below it (`below`: a prompt's diff with the active version).
import type { ReactNode } from 'react';
import { FormAlert } from '@/components/ui/form-alert';
import { secondaryButton } from '@/components/ui/styles';

/** What the history needs of a version. */
export interface HistoryVersion {
  version: number;
  changelog: string | null;
  created_at: string;
}

export interface VersionHistoryProps<V extends HistoryVersion> {
  versions: { versions: V[]; active_version: number } | undefined;
  loading: boolean;
  onRollback: (version: number) => void;
  rollingBack: number | null;
  error: string | null;
}

/** The history's props from the page's versions query and rollback mutation (while it runs, the version it rolls back to). */
export function versionHistoryProps<V extends HistoryVersion>(
  versions: { data: VersionHistoryProps<V>['versions']; isPending: boolean },
  rollback: { isPending: boolean; variables: number | undefined },
  onRollback: (version: number) => void,
  error: string | null,
): VersionHistoryProps<V> {
  return { versions: versions.data, loading: versions.isPending, onRollback, rollingBack: rollback.isPending ? (rollback.variables ?? null) : null, error };
}

interface VersionHistoryLayout<V extends HistoryVersion> {
  intro: string;
  /** The rows' test ids: `${testIdPrefix}-${version}`. */
  testIdPrefix: string;
  /** The line under the changelog. */
  meta: (version: V) => ReactNode;
  /** Below the row (the active version, when there is one, to compare with). */
  below?: (version: V, active: V | undefined) => ReactNode;
}

export function VersionHistory<V extends HistoryVersion>({
  versions,
  loading,
  onRollback,
  rollingBack,
  error,
  intro,
  testIdPrefix,
  meta,
  below,
}: VersionHistoryProps<V> & VersionHistoryLayout<V>) {
  const active = versions?.versions.find((version) => version.version === versions.active_version);
  return (
    <div className="max-w-4xl">
      <h2 className="text-lg font-semibold text-gray-900">Version History</h2>
      <p className="mt-1 text-sm text-gray-600">{intro}</p>
      <FormAlert message={error} className="mt-4" as="p" />
      {loading || !versions ? (
        <p className="mt-4 text-sm text-gray-600">Loading versions...</p>
      ) : (
        <ol className="mt-4 divide-y divide-gray-100 rounded-md ring-1 ring-gray-200">
          {versions.versions.map((version) => {
            const isActive = version.version === versions.active_version;
            return (
              <li key={version.version} className="p-4" data-testid={`${testIdPrefix}-${version.version}`}>
                <div className="flex flex-wrap items-center justify-between gap-3">
                  <div className="min-w-0">
                    <p className="text-sm font-semibold text-gray-900">
                      Version {version.version}
                      {isActive ? <span className="ml-2 rounded-full bg-green-100 px-2 py-0.5 text-xs font-medium text-green-800">Active</span> : null}
                    </p>
                    <p className="text-sm text-gray-700">{version.changelog || 'No changelog'}</p>
                    {meta(version)}
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
                {below && !isActive ? below(version, active) : null}
              </li>
            );
          })}
        </ol>
      )}
    </div>
  );
}
