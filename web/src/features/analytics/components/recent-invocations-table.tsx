import type { RecentInvocations } from '@tollbooth/contract';
import {
  endUserLabel,
  errorTypeLabel,
  formatCreatedAt,
  formatModelCost,
  formatRevenue,
  formatSeconds,
  invocationOutcomeClass,
  totalTokens,
  truncateId,
} from '../lib/analytics-format.utils';

// User: the `user` the caller sent, or Anonymous (the server never answers an account id).
// Status: the outcome — success, failed (the app's fault) or rejected (the caller's mistake).
// Price and Model Cost: what the caller paid, and what the answer cost upstream (only owners see this table).
const COLUMNS = ['ID', 'User', 'Status', 'Error Type', 'Response Time', 'Tokens', 'Price', 'Model Cost', 'Created At'];
const cell = 'px-6 py-4 text-sm whitespace-nowrap text-gray-900';

export const NO_INVOCATIONS_MESSAGE = 'No invocations found.';

export function RecentInvocationsTable({ invocations }: { invocations: RecentInvocations }) {
  return (
    <section aria-label="Recent Invocations" className="rounded-lg bg-white shadow-sm ring-1 ring-gray-200">
      <h2 className="px-6 pt-5 pb-3 text-lg font-semibold text-gray-900">Recent Invocations</h2>
      {invocations.length === 0 ? (
        <p className="px-6 pb-6 text-sm text-gray-500">{NO_INVOCATIONS_MESSAGE}</p>
      ) : (
        <div className="overflow-x-auto">
          <table className="min-w-full divide-y divide-gray-200">
            <thead className="bg-gray-50">
              <tr>
                {COLUMNS.map((column) => (
                  <th key={column} scope="col" className="px-6 py-3 text-left text-xs font-medium tracking-wider text-gray-500 uppercase">
                    {column}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody className="divide-y divide-gray-200">
              {invocations.map((invocation) => (
                <tr key={invocation.id} data-testid="invocation-row">
                  <td className={`${cell} font-mono`} title={invocation.id}>
                    {truncateId(invocation.id)}
                  </td>
                  <td className={cell}>{endUserLabel(invocation.end_user)}</td>
                  <td className={cell}>
                    <span className={`inline-flex rounded-full px-2.5 py-0.5 text-xs font-semibold ${invocationOutcomeClass(invocation.outcome)}`}>
                      {invocation.outcome}
                    </span>
                  </td>
                  <td className={`${cell} font-mono`}>{errorTypeLabel(invocation.error_type, invocation.outcome)}</td>
                  <td className={cell}>{formatSeconds(invocation.response_time, 3)}</td>
                  <td className={cell}>{totalTokens(invocation)}</td>
                  <td className={cell}>{formatRevenue(invocation.price_cents / 100)}</td>
                  <td className={cell}>{formatModelCost(invocation.model_cost)}</td>
                  <td className={cell}>{formatCreatedAt(invocation.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
