import type { DashboardAnalytics } from '@tollbooth/contract';
import { formatCount, rejectionLabel } from '../lib/analytics-format.utils';

export const NO_REJECTIONS_MESSAGE = 'No rejected calls in this period.';

/**
 * Rejected Calls: calls refused for the caller's own mistake (a bad key, a private app, invalid
 * inputs, no credit, a rate limit…), by type. They are shown apart because they say nothing about
 * the app: the success rate counts only successful and failed calls.
 */
export function RejectedCalls({ rejections, total }: { rejections: DashboardAnalytics['rejections']; total: number }) {
  return (
    <section aria-label="Rejected Calls" className="rounded-lg bg-white p-5 shadow-sm ring-1 ring-gray-200">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 className="text-lg font-semibold text-gray-900">Rejected Calls</h2>
        <p className="text-sm font-medium text-gray-700" data-testid="rejected-total">
          {formatCount(total)} rejected
        </p>
      </div>
      <p className="mt-1 text-sm text-gray-600">
        Refused for the caller's own mistake, such as a missing or bad API key, a private app, invalid inputs, no credit or a rate limit. They are not counted
        against the success rate.
      </p>
      {rejections.length === 0 ? (
        <p className="mt-4 text-sm text-gray-600">{NO_REJECTIONS_MESSAGE}</p>
      ) : (
        <ul className="mt-4 divide-y divide-gray-100">
          {rejections.map((group) => (
            <li key={group.error_type} className="flex items-center justify-between gap-4 py-2 text-sm" data-testid="rejection-group">
              <span className="min-w-0">
                <span className="text-gray-900">{rejectionLabel(group.error_type)}</span>{' '}
                <code className="ml-1 rounded bg-gray-100 px-1.5 py-0.5 font-mono text-xs text-gray-700">{group.error_type || 'unknown'}</code>
              </span>
              <span className="font-medium text-gray-700">{formatCount(group.count)}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
