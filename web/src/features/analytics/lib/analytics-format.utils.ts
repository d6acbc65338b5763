// The analytics screens' number and date formats (spec sections 2 and 9): counts with thousands
// separators, success rates with one decimal and %, response times in seconds (three decimals in
// tables, two on the per-application card), local dates, ids cut to eight characters.
import { formatDate, formatDateTime, formatModelCost } from '@/lib/format';
import { formatCount } from '@/lib/format-count';

export { formatCount, formatModelCost };

const dollars = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });

export const INVOCATION_ID_LENGTH = 8;
export const NEVER_USED = 'Never';
export const ANONYMOUS_USER = 'Anonymous';

/** A percentage with one decimal: 66.67 → "66.7%". */
export function formatPercent(value: number): string {
  return `${value.toFixed(1)}%`;
}

/** Shown for a rate with nothing to measure. */
export const NO_DATA = '–';

/**
 * A success rate, or "–" when no call succeeded or failed (only rejected calls, or none): a rate of
 * nothing is no data, not 0%.
 */
export function formatSuccessRate(rate: number, successOrFailedCalls: number): string {
  return successOrFailedCalls > 0 ? formatPercent(rate) : NO_DATA;
}

/** Seconds with a fixed number of decimals and an s suffix: (1.2345, 3) → "1.235s". */
export function formatSeconds(value: number, decimals: 2 | 3): string {
  return `${value.toFixed(decimals)}s`;
}

/** Dollars with two decimals: 4.5 → "$4.50". */
export function formatRevenue(value: number): string {
  return dollars.format(value);
}

/** The Last Used column: a local date, or Never. */
export function formatLastUsed(value: string | null | undefined): string {
  return formatDate(value, NEVER_USED);
}

/** The Created At column: a local date and time. */
export function formatCreatedAt(value: string): string {
  return formatDateTime(value, '');
}

/** An invocation id as its first eight characters and an ellipsis. */
export function truncateId(id: string): string {
  return `${id.slice(0, INVOCATION_ID_LENGTH)}...`;
}

export function endUserLabel(endUser: string | null | undefined): string {
  return endUser || ANONYMOUS_USER;
}

/** Tokens of one call: input plus output. */
export function totalTokens(invocation: { input_tokens: number; output_tokens: number }): string {
  return formatCount(invocation.input_tokens + invocation.output_tokens);
}

/** Green for success, red for anything else. */
export function invocationStatusClass(status: string): string {
  return status === 'success' ? 'bg-green-100 text-green-800' : 'bg-red-100 text-red-800';
}

/**
 * A call's outcome badge: success green, failed (the app's fault) red, rejected (the caller's
 * mistake, not held against the app) amber; anything else red, like a failure.
 */
export function invocationOutcomeClass(outcome: string): string {
  if (outcome === 'rejected') return 'bg-amber-100 text-amber-900';
  return invocationStatusClass(outcome);
}

/** What each kind of rejected call means, in words (the code is shown beside it). */
const REJECTION_LABELS: Readonly<Record<string, string>> = {
  unauthorized: 'Missing or bad API key (401)',
  forbidden: 'Not allowed (403)',
  app_unavailable: 'App not live (403)',
  wrong_route: "Wrong endpoint for the app's mode (400)",
  not_chat_app: 'Chat call to an app that is not a chat app (400)',
  not_workflow_app: 'Workflow run on an app that is not a workflow app (400)',
  method_not_allowed: 'Method not allowed (405)',
  not_found: 'Private or unknown app, or conversation (404)',
  invalid_param: 'Invalid inputs (400)',
  insufficient_credits: 'Not enough credit (402)',
  key_limit_exceeded: "API key's spending limit reached (402)",
  price_above_limit: "Above the caller's price cap (402)",
  conflict: 'Idempotency key reused with another body (409)',
  payload_too_large: 'Request too large (413)',
  unsupported_media_type: 'Unsupported file type (415)',
  rate_limited: 'Rate limited (429)',
  client_disconnected: 'Caller left before the answer',
};

export function rejectionLabel(errorType: string): string {
  // The code is shown beside the label: an unknown type is not repeated as its own label.
  return REJECTION_LABELS[errorType] ?? (errorType.trim() === '' ? 'Unknown reason' : 'Other reason');
}

/** The Error Type column: the recorded type, or a dash for a successful call. */
export function errorTypeLabel(errorType: string, outcome: string): string {
  if (outcome === 'success') return '—';
  return errorType.trim() === '' ? 'Unknown Error' : errorType;
}

const shortDay = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
const longDay = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });

/** An ISO day (UTC) as a chart tick: "2024-03-05" → "Mar 5". Days are UTC, so they are shown in UTC. */
export function formatDayTick(isoDay: string): string {
  const date = new Date(`${isoDay}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? isoDay : shortDay.format(date);
}

/** An ISO day (UTC) in a chart tooltip: "Mar 5, 2024". */
export function formatDayLabel(isoDay: string): string {
  const date = new Date(`${isoDay}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? isoDay : longDay.format(date);
}
