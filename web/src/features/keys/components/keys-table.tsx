// A table of keys, secret or publishable: an empty line when there are none, the failure of the last
// revoke, then one row per key: its name, the kind's own columns, and a Revoke button that asks first.
import type { ApiKey } from '@tollbooth/contract';
import { type DataColumn, DataTable } from '@/components/ui/data-table';
import { useRevokeApiKey } from '../api/revoke-api-key';
import { RevokeButton, RevokeError } from './revoke-button';

export function KeysTable({
  keys,
  empty,
  rowTestIdPrefix,
  confirmMessage,
  columns,
}: {
  keys: ApiKey[];
  empty: string;
  rowTestIdPrefix: string;
  confirmMessage: string;
  /** The columns between the name and the Revoke button. */
  columns: DataColumn<ApiKey>[];
}) {
  const revoke = useRevokeApiKey();
  if (keys.length === 0) return <p className="py-6 text-center text-sm text-gray-500">{empty}</p>;
  return (
    <div>
      <RevokeError error={revoke.error} />
      <DataTable
        look="compact"
        rows={keys}
        rowKey={(key) => key.id}
        rowTestId={(key) => `${rowTestIdPrefix}-${key.id}`}
        columns={[
          { label: 'Name', cell: (key) => key.name, className: 'font-medium break-all text-gray-900' },
          ...columns,
          {
            label: 'Actions',
            hiddenLabel: true,
            className: 'text-right',
            cell: (key) => (
              <RevokeButton
                name={key.name}
                revoking={revoke.isPending && revoke.variables === key.id}
                onClick={() => window.confirm(confirmMessage) && revoke.mutate(key.id)}
              />
            ),
          },
        ]}
      />
    </div>
  );
}
