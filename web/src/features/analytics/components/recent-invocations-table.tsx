import { formatMicros, type RecentInvocations } from '@tollbooth/contract';
import { DataTable } from '@/components/ui/data-table';
import {
  endUserLabel,
  errorTypeLabel,
  formatCreatedAt,
  formatModelCost,
  formatSeconds,
  invocationOutcomeClass,
  totalTokens,
  truncateId,
} from '../lib/analytics-format.utils';

// User: the `user` the caller sent, or Anonymous (the server never answers an account id).
// Status: the outcome — success, failed (the app's fault) or rejected (the caller's mistake).
// Price and Model Cost: what the call cost its caller, exactly (issue 60: a per-token call costs
// fractions of a cent; the cents posted add up across calls), and what the answer cost upstream
// (only owners see this table).

export const NO_INVOCATIONS_MESSAGE = 'No invocations found.';

export function RecentInvocationsTable({ invocations }: { invocations: RecentInvocations }) {
  return (
    <section aria-label="Recent Invocations" className="rounded-lg bg-white shadow-sm ring-1 ring-gray-200">
      <h2 className="px-6 pt-5 pb-3 text-lg font-semibold text-gray-900">Recent Invocations</h2>
      {invocations.length === 0 ? (
        <p className="px-6 pb-6 text-sm text-gray-500">{NO_INVOCATIONS_MESSAGE}</p>
      ) : (
        <DataTable
          look="report"
          // Wider than a laptop screen: the keyboard scrolls it (issue 61, axe scrollable-region-focusable).
          scrollLabel="Recent invocations, scrollable"
          rows={invocations}
          rowKey={(invocation) => invocation.id}
          rowTestId={() => 'invocation-row'}
          columns={[
            {
              label: 'ID',
              className: 'font-mono',
              cell: (invocation) => <span title={invocation.id}>{truncateId(invocation.id)}</span>,
            },
            { label: 'User', cell: (invocation) => endUserLabel(invocation.end_user) },
            {
              label: 'Status',
              cell: (invocation) => (
                <span className={`inline-flex rounded-full px-2.5 py-0.5 text-xs font-semibold ${invocationOutcomeClass(invocation.outcome)}`}>
                  {invocation.outcome}
                </span>
              ),
            },
            { label: 'Error Type', className: 'font-mono', cell: (invocation) => errorTypeLabel(invocation.error_type, invocation.outcome) },
            { label: 'Response Time', cell: (invocation) => formatSeconds(invocation.response_time, 3) },
            { label: 'Tokens', cell: totalTokens },
            {
              label: 'Price',
              cell: (invocation) => (
                <span title={`${invocation.price_cents.toLocaleString('en-US')} ${invocation.price_cents === 1 ? 'cent' : 'cents'} posted`}>
                  {formatMicros(invocation.charge_micros)}
                </span>
              ),
            },
            { label: 'Model Cost', cell: (invocation) => formatModelCost(invocation.model_cost) },
            { label: 'Created At', cell: (invocation) => formatCreatedAt(invocation.created_at) },
          ]}
        />
      )}
    </section>
  );
}
