import type { WorkflowVersionList } from '@tollbooth/contract';
import { secondaryButton } from '@/components/ui/styles';
import { formatDateTime } from '@/lib/format';

interface WorkflowVersionHistoryProps {
  versions: WorkflowVersionList | undefined;
  loading: boolean;
  onRollback: (version: number) => void;
  rollingBack: number | null;
  error: string | null;
}

/** Numbered snapshots of the configuration, newest first; rolling back makes a new version. */
export function WorkflowVersionHistory({ versions, loading, onRollback, rollingBack, error }: WorkflowVersionHistoryProps) {
  return (
    <div className="max-w-4xl">
      <h2 className="text-lg font-semibold text-gray-900">Version History</h2>
      <p className="mt-1 text-sm text-gray-600">
        Every save that changes the settings is a version. Rolling back restores a version's settings (and its key) as a new version.
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
            const active = version.version === versions.active_version;
            return (
              <li key={version.version} className="flex flex-wrap items-center justify-between gap-3 p-4" data-testid={`workflow-version-${version.version}`}>
                <div className="min-w-0">
                  <p className="text-sm font-semibold text-gray-900">
                    Version {version.version}
                    {active ? <span className="ml-2 rounded-full bg-green-100 px-2 py-0.5 text-xs font-medium text-green-800">Active</span> : null}
                  </p>
                  <p className="text-sm text-gray-700">{version.changelog || 'No changelog'}</p>
                  <p className="text-xs text-gray-500">
                    {formatDateTime(version.created_at)} · timeout {version.timeout_seconds} s · max iterations {version.max_iterations} · logging{' '}
                    {version.enable_logging ? 'on' : 'off'}
                    {version.provider_config.app_id ? ` · app ${version.provider_config.app_id}` : ''}
                  </p>
                </div>
                <button
                  type="button"
                  className={secondaryButton}
                  disabled={active || rollingBack !== null}
                  onClick={() => onRollback(version.version)}
                  aria-label={`Roll back to version ${version.version}`}
                >
                  {rollingBack === version.version ? 'Rolling back...' : 'Roll back'}
                </button>
              </li>
            );
          })}
        </ol>
      )}
    </div>
  );
}
