import type { ApiKey } from '@tollbooth/contract';
import { getErrorMessage, isUnauthorizedError } from '@/lib/errors';
import { formatCents } from '@/lib/format';
import { useRevokeApiKey } from '../api/revoke-api-key';
import { OriginList } from './origin-list';

export const REVOKE_PUBLISHABLE_CONFIRM_MESSAGE = 'Revoke this publishable key? Widgets using it stop working immediately.';

const columns = ['Name', 'Key', 'Websites', 'Apps', 'Spent Today', 'Spent This Month', 'Actions'];

/** The publishable keys, whole (they are public), with where they work and what they spent against their caps. */
export function PublishableKeyTable({ keys }: { keys: ApiKey[] }) {
  const revoke = useRevokeApiKey();
  const revokeError = revoke.error && !isUnauthorizedError(revoke.error) ? getErrorMessage(revoke.error) : null;
  if (keys.length === 0) return <p className="py-6 text-center text-sm text-gray-500">No publishable keys yet</p>;
  return (
    <div>
      {revokeError ? (
        <div role="alert" className="mb-3 rounded-md bg-red-50 p-3 text-sm text-red-700 ring-1 ring-red-200">
          {revokeError}
        </div>
      ) : null}
      <div className="overflow-x-auto">
        <table className="min-w-full divide-y divide-gray-200 text-sm">
          <thead>
            <tr>
              {columns.map((column) => (
                <th key={column} scope="col" className="px-3 py-2 text-left font-medium whitespace-nowrap text-gray-500">
                  {column === 'Actions' ? <span className="sr-only">{column}</span> : column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y divide-gray-100">
            {keys.map((key) => {
              const details = key.publishable!;
              const revoking = revoke.isPending && revoke.variables === key.id;
              return (
                <tr key={key.id} data-testid={`publishable-key-row-${key.id}`}>
                  <td className="px-3 py-2 font-medium break-all text-gray-900">{key.name}</td>
                  <td className="max-w-[14rem] px-3 py-2 font-mono text-xs break-all text-gray-700">{details.key}</td>
                  <td className="min-w-[14rem] px-3 py-2 text-gray-700">
                    <OriginList origins={details.allowed_origins} />
                  </td>
                  <td className="px-3 py-2 font-mono text-xs text-gray-700">{details.app_slugs.join(', ')}</td>
                  <td className="px-3 py-2 whitespace-nowrap text-gray-700">
                    {formatCents(details.spent_today_cents)} of {formatCents(details.daily_spend_limit_cents)}
                  </td>
                  <td className="px-3 py-2 whitespace-nowrap text-gray-700">
                    {formatCents(key.spent_this_month_cents)} of {formatCents(key.monthly_spend_limit_cents ?? 0)}
                  </td>
                  <td className="px-3 py-2 text-right">
                    <button
                      type="button"
                      className="rounded-md px-3 py-1.5 text-sm font-semibold text-red-600 ring-1 ring-red-200 ring-inset hover:bg-red-50 disabled:cursor-not-allowed disabled:opacity-60"
                      disabled={revoking}
                      onClick={() => window.confirm(REVOKE_PUBLISHABLE_CONFIRM_MESSAGE) && revoke.mutate(key.id)}
                      aria-label={`Revoke ${key.name}`}
                    >
                      {revoking ? 'Revoking...' : 'Revoke'}
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </div>
  );
}
