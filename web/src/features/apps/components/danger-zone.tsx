import type { Application } from '@tollbooth/contract';
import { useNavigate } from 'react-router';
import { useDeleteApp } from '@/lib/api/apps/delete-app';
import { getErrorMessage, isUnauthorizedError } from '@/lib/errors';

export const DELETE_CONFIRM_MESSAGE = 'Are you sure you want to delete this application? This action cannot be undone.';

export function DangerZone({ app }: { app: Application }) {
  const navigate = useNavigate();
  const deleteApp = useDeleteApp();
  const error = deleteApp.error && !isUnauthorizedError(deleteApp.error) ? getErrorMessage(deleteApp.error) : null;

  function handleDelete() {
    if (deleteApp.isPending) return;
    if (!window.confirm(DELETE_CONFIRM_MESSAGE)) return;
    deleteApp.mutate(app.slug, { onSuccess: () => navigate('/applications') });
  }

  return (
    <section aria-labelledby="danger-zone-title" className="rounded-lg bg-white p-6 shadow-sm ring-1 ring-red-200">
      <h2 id="danger-zone-title" className="text-lg font-semibold text-red-700">
        Danger Zone
      </h2>
      <p className="mt-1 text-sm text-gray-600">Deleting an application removes its endpoint. Its invocation and payment history is kept.</p>
      <button
        type="button"
        onClick={handleDelete}
        disabled={deleteApp.isPending}
        className="mt-4 inline-flex items-center rounded-md bg-red-600 px-4 py-2 text-sm font-semibold text-white shadow-sm hover:bg-red-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-600 disabled:cursor-not-allowed disabled:opacity-60"
      >
        {deleteApp.isPending ? 'Deleting...' : 'Delete Application'}
      </button>
      {error ? (
        <p role="alert" className="mt-3 text-sm text-red-600">
          {error}
        </p>
      ) : null}
    </section>
  );
}
