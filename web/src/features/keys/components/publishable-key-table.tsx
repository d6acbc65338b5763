import type { ApiKey } from '@tollbooth/contract';
import { formatCents } from '@/lib/format';
import { KeysTable } from './keys-table';
import { OriginList } from './origin-list';

export const REVOKE_PUBLISHABLE_CONFIRM_MESSAGE = 'Revoke this publishable key? Widgets using it stop working immediately.';

/** The publishable keys, whole (they are public), with where they work and what they spent against their caps. */
export function PublishableKeyTable({ keys }: { keys: ApiKey[] }) {
  return (
    <KeysTable
      keys={keys}
      empty="No publishable keys yet"
      rowTestIdPrefix="publishable-key-row"
      confirmMessage={REVOKE_PUBLISHABLE_CONFIRM_MESSAGE}
      columns={[
        { label: 'Key', cell: (key) => key.publishable!.key, className: 'max-w-[14rem] font-mono text-xs break-all text-gray-700' },
        { label: 'Websites', cell: (key) => <OriginList origins={key.publishable!.allowed_origins} />, className: 'min-w-[14rem] text-gray-700' },
        { label: 'Apps', cell: (key) => key.publishable!.app_slugs.join(', '), className: 'font-mono text-xs text-gray-700' },
        {
          label: 'Spent Today',
          cell: (key) => `${formatCents(key.publishable!.spent_today_cents)} of ${formatCents(key.publishable!.daily_spend_limit_cents)}`,
          className: 'whitespace-nowrap text-gray-700',
        },
        {
          label: 'Spent This Month',
          cell: (key) => `${formatCents(key.spent_this_month_cents)} of ${formatCents(key.monthly_spend_limit_cents ?? 0)}`,
          className: 'whitespace-nowrap text-gray-700',
        },
      ]}
    />
  );
}
