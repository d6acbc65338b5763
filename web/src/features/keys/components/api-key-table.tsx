import type { ApiKey } from '@tollbooth/contract';
import { DataTable } from '@/components/ui/data-table';
import { formatCents, formatDateTime } from '@/lib/format';
import { useRevokeApiKey } from '../api/revoke-api-key';
import { RevokeButton, RevokeError } from './revoke-button';

export const REVOKE_CONFIRM_MESSAGE = 'Revoke this API key? Calls using it will fail immediately.';

export function ApiKeyTable({ keys }: { keys: ApiKey[] }) {
  const revoke = useRevokeApiKey();

  function revokeKey(key: ApiKey) {
    if (!window.confirm(REVOKE_CONFIRM_MESSAGE)) return;
    revoke.mutate(key.id);
  }

  if (keys.length === 0) return <p className="py-6 text-center text-sm text-gray-500">No API keys yet</p>;
  return (
    <div>
      <RevokeError error={revoke.error} />
      <DataTable
        look="compact"
        rows={keys}
        rowKey={(key) => key.id}
        rowTestId={(key) => `api-key-row-${key.id}`}
        columns={[
          { label: 'Name', cell: (key) => key.name, className: 'font-medium break-all text-gray-900' },
          { label: 'Key', cell: (key) => `${key.prefix}…`, className: 'font-mono whitespace-nowrap text-gray-700' },
          { label: 'Last Used', cell: (key) => formatDateTime(key.last_used_at, 'Never'), className: 'whitespace-nowrap text-gray-700' },
          { label: 'Spend This Month', cell: (key) => formatCents(key.spent_this_month_cents), className: 'whitespace-nowrap text-gray-700' },
          { label: 'Limit', cell: keyLimits, className: 'whitespace-nowrap text-gray-700' },
          {
            label: 'Actions',
            hiddenLabel: true,
            className: 'text-right',
            cell: (key) => <RevokeButton name={key.name} revoking={revoke.isPending && revoke.variables === key.id} onClick={() => revokeKey(key)} />,
          },
        ]}
      />
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
