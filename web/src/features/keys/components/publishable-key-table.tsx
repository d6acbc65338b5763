import type { ApiKey } from '@tollbooth/contract';
import { DataTable } from '@/components/ui/data-table';
import { formatCents } from '@/lib/format';
import { useRevokeApiKey } from '../api/revoke-api-key';
import { OriginList } from './origin-list';
import { RevokeButton, RevokeError } from './revoke-button';

export const REVOKE_PUBLISHABLE_CONFIRM_MESSAGE = 'Revoke this publishable key? Widgets using it stop working immediately.';

/** The publishable keys, whole (they are public), with where they work and what they spent against their caps. */
export function PublishableKeyTable({ keys }: { keys: ApiKey[] }) {
  const revoke = useRevokeApiKey();
  if (keys.length === 0) return <p className="py-6 text-center text-sm text-gray-500">No publishable keys yet</p>;
  return (
    <div>
      <RevokeError error={revoke.error} />
      <DataTable
        look="compact"
        rows={keys}
        rowKey={(key) => key.id}
        rowTestId={(key) => `publishable-key-row-${key.id}`}
        columns={[
          { label: 'Name', cell: (key) => key.name, className: 'font-medium break-all text-gray-900' },
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
          {
            label: 'Actions',
            hiddenLabel: true,
            className: 'text-right',
            cell: (key) => (
              <RevokeButton
                name={key.name}
                revoking={revoke.isPending && revoke.variables === key.id}
                onClick={() => window.confirm(REVOKE_PUBLISHABLE_CONFIRM_MESSAGE) && revoke.mutate(key.id)}
              />
            ),
          },
        ]}
      />
    </div>
  );
}
