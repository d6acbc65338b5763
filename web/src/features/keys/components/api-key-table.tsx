import type { ApiKey } from '@tollbooth/contract';
import { formatCents, formatDateTime } from '@/lib/format';
import { KeysTable } from './keys-table';

export const REVOKE_CONFIRM_MESSAGE = 'Revoke this API key? Calls using it will fail immediately.';

export function ApiKeyTable({ keys }: { keys: ApiKey[] }) {
  return (
    <KeysTable
      keys={keys}
      empty="No API keys yet"
      rowTestIdPrefix="api-key-row"
      confirmMessage={REVOKE_CONFIRM_MESSAGE}
      columns={[
        { label: 'Key', cell: (key) => `${key.prefix}…`, className: 'font-mono whitespace-nowrap text-gray-700' },
        { label: 'Last Used', cell: (key) => formatDateTime(key.last_used_at, 'Never'), className: 'whitespace-nowrap text-gray-700' },
        { label: 'Spend This Month', cell: (key) => formatCents(key.spent_this_month_cents), className: 'whitespace-nowrap text-gray-700' },
        { label: 'Limit', cell: keyLimits, className: 'whitespace-nowrap text-gray-700' },
      ]}
    />
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
