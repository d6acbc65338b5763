import type { WorkflowVersion } from '@tollbooth/contract';
import { VersionHistory, type VersionHistoryProps } from '@/components/app-detail/version-history';
import { formatDateTime } from '@/lib/format';

const meta = (version: WorkflowVersion) => (
  <p className="text-xs text-gray-500">
    {formatDateTime(version.created_at)} · timeout {version.timeout_seconds} s · max iterations {version.max_iterations} · logging{' '}
    {version.enable_logging ? 'on' : 'off'}
    {version.provider_config.app_id ? ` · app ${version.provider_config.app_id}` : ''}
  </p>
);

const layout = {
  intro: "Every save that changes the settings is a version. Rolling back restores a version's settings (and its key) as a new version.",
  testIdPrefix: 'workflow-version',
  meta,
};

/** Numbered snapshots of the configuration, newest first; rolling back makes a new version. */
export function WorkflowVersionHistory(props: VersionHistoryProps<WorkflowVersion>) {
  return <VersionHistory {...props} {...layout} />;
}
