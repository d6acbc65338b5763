import type { Application, AppStatus } from '@tollbooth/contract';
import { StatusBadge } from '@/components/ui/badges';
import { TitledCard } from '@/components/ui/titled-card';
import { useUpdateAppStatus } from '@/lib/api/apps/update-app-status';
import { getErrorMessage, isUnauthorizedError } from '@/lib/errors';

const statusButtons: Array<{ status: AppStatus; label: string; className: string }> = [
  // Text and background keep a contrast of at least 4.5:1 (dark text on the draft yellow, white on the darker green and gray).
  { status: 'draft', label: 'Set as Draft', className: 'bg-yellow-400 text-gray-900 hover:bg-yellow-300 disabled:hover:bg-yellow-400' },
  { status: 'live', label: 'Set as Live', className: 'bg-green-700 text-white hover:bg-green-800 disabled:hover:bg-green-700' },
  { status: 'archived', label: 'Archive', className: 'bg-gray-600 text-white hover:bg-gray-700 disabled:hover:bg-gray-600' },
];

export function StatusManagement({ app }: { app: Application }) {
  const updateStatus = useUpdateAppStatus();
  const error = updateStatus.error && !isUnauthorizedError(updateStatus.error) ? getErrorMessage(updateStatus.error) : null;

  return (
    <TitledCard id="status-management" title="Status Management">
      <p className="mt-1 flex items-center gap-2 text-sm text-gray-600">
        Current status: <StatusBadge status={app.status} />
      </p>
      <div className="mt-4 flex flex-wrap gap-3">
        {statusButtons.map((button) => (
          <button
            key={button.status}
            type="button"
            disabled={app.status === button.status || updateStatus.isPending}
            onClick={() => updateStatus.mutate({ slug: app.slug, status: button.status })}
            className={`inline-flex items-center rounded-md px-4 py-2 text-sm font-semibold shadow-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:cursor-not-allowed disabled:opacity-50 ${button.className}`}
          >
            {button.label}
          </button>
        ))}
      </div>
      {error ? (
        <p role="alert" className="mt-3 text-sm text-red-600">
          {error}
        </p>
      ) : null}
    </TitledCard>
  );
}
