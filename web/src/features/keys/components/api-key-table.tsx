import type { ApiKey } from '@tollbooth/contract';
import { getErrorMessage, isUnauthorizedError } from '@/lib/errors';
import { formatCents, formatDateTime } from '@/lib/format';
import { useRevokeApiKey } from '../api/revoke-api-key';

export const REVOKE_CONFIRM_MESSAGE = 'Revoke this API key? Calls using it will fail immediately.';

const columns = ['Name', 'Key', 'Last Used', 'Spend This Month', 'Limit', 'Actions'];

export function ApiKeyTable({ keys }: { keys: ApiKey[] }) {
  const revoke = useRevokeApiKey();
  const revokeError = revoke.error && !isUnauthorizedError(revoke.error) ? getErrorMessage(revoke.error) : null;

  function revokeKey(key: ApiKey) {
    if (!window.confirm(REVOKE_CONFIRM_MESSAGE)) return;
    revoke.mutate(key.id);
  }

  if (keys.length === 0) return <p className="py-6 text-center text-sm text-gray-500">No API keys yet</p>;
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
              const revoking = revoke.isPending && revoke.variables === key.id;
              return (
                <tr key={key.id} data-testid={`api-key-row-${key.id}`}>
                  <td className="px-3 py-2 font-medium break-all text-gray-900">{key.name}</td>
                  <td className="px-3 py-2 font-mono whitespace-nowrap text-gray-700">{`${key.prefix}…`}</td>
                  <td className="px-3 py-2 whitespace-nowrap text-gray-700">{formatDateTime(key.last_used_at, 'Never')}</td>
                  <td className="px-3 py-2 whitespace-nowrap text-gray-700">{formatCents(key.spent_this_month_cents)}</td>
                  <td className="px-3 py-2 whitespace-nowrap text-gray-700">{keyLimits(key)}</td>
                  <td className="px-3 py-2 text-right">
                    <button
                      type="button"
                      className="rounded-md px-3 py-1.5 text-sm font-semibold text-red-600 ring-1 ring-red-200 ring-inset hover:bg-red-50 disabled:cursor-not-allowed disabled:opacity-60"
                      disabled={revoking}
                      onClick={() => revokeKey(key)}
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

/** Both limits a key may carry (issue 25: a per-call price cap is a limit too); "No limit" only with neither. */
export function keyLimits(key: { monthly_spend_limit_cents: number | null; max_price_cents?: number | null }): string {
  const limits = [
    ...(key.monthly_spend_limit_cents === null ? [] : [`${formatCents(key.monthly_spend_limit_cents)} a month`]),
    ...(key.max_price_cents === null || key.max_price_cents === undefined ? [] : [`at most ${formatCents(key.max_price_cents)} a call`]),
  ];
  return limits.length > 0 ? limits.join(', ') : 'No limit';
}
