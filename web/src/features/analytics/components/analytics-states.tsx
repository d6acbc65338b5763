// The three non-data states both analytics screens share (spec sections 2 and 8).

import { ErrorBox } from '@/components/ui/error-box';
import { PageSpinner } from '@/components/ui/spinner';
import { isUnauthorizedError } from '@/lib/errors';

export const ANALYTICS_LOAD_ERROR = 'Failed to load analytics data';
export const NO_DATA_MESSAGE = 'No data available';

export function AnalyticsLoading() {
  return <PageSpinner message="Loading analytics..." />;
}

/** The Error box; a 401 is only logged by the API client, never shown. */
export function AnalyticsError({ error }: { error: unknown }) {
  return isUnauthorizedError(error) ? null : <ErrorBox message={ANALYTICS_LOAD_ERROR} />;
}

export function NoAnalyticsData() {
  return <div className="rounded-lg border-2 border-dashed border-gray-300 bg-white px-6 py-12 text-center text-sm text-gray-500">{NO_DATA_MESSAGE}</div>;
}
