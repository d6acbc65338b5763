// A key table's Revoke button, named for screen readers by the key it revokes, and the failure of a revoke.
import { getErrorMessage, isUnauthorizedError } from '@/lib/errors';

export function RevokeButton({ name, revoking, onClick }: { name: string; revoking: boolean; onClick: () => void }) {
  return (
    <button
      type="button"
      className="rounded-md px-3 py-1.5 text-sm font-semibold text-red-600 ring-1 ring-red-200 ring-inset hover:bg-red-50 disabled:cursor-not-allowed disabled:opacity-60"
      disabled={revoking}
      onClick={onClick}
      aria-label={`Revoke ${name}`}
    >
      {revoking ? 'Revoking...' : 'Revoke'}
    </button>
  );
}

/** Why the last revoke failed (a 401 is only logged, never shown). */
export function RevokeError({ error }: { error: unknown }) {
  if (!error || isUnauthorizedError(error)) return null;
  return (
    <div role="alert" className="mb-3 rounded-md bg-red-50 p-3 text-sm text-red-700 ring-1 ring-red-200">
      {getErrorMessage(error)}
    </div>
  );
}
