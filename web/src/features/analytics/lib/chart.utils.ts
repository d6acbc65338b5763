// What the analytics charts draw, kept out of the components so it can be tested without a
// browser: which series each chart has (data key, name, colour), the Top Errors slices, and the
// periods of the period buttons.
import type { DashboardAnalytics } from '@tollbooth/contract';

export const ANALYTICS_PERIODS = [7, 30, 90] as const;
export type AnalyticsPeriod = (typeof ANALYTICS_PERIODS)[number];
export const DEFAULT_PERIOD: AnalyticsPeriod = 30;

export const CHART_HEIGHT = 300;
export const PIE_HEIGHT = 200;

/** The five Top Errors slice colours, cycled. */
export const ERROR_COLORS = ['#0088FE', '#00C49F', '#FFBB28', '#FF8042', '#8884D8'] as const;
export const UNKNOWN_ERROR = 'Unknown Error';

export function periodLabel(days: AnalyticsPeriod): string {
  return `${days}d`;
}

/** The period in a ?days= query value, or the default for anything else. */
export function parsePeriod(value: string | null | undefined): AnalyticsPeriod {
  const days = Number(value);
  return (ANALYTICS_PERIODS as readonly number[]).includes(days) ? (days as AnalyticsPeriod) : DEFAULT_PERIOD;
}

export interface ChartSeries {
  dataKey: string;
  name: string;
  color: string;
  /** Series with the same stack id are drawn on top of each other. */
  stackId?: string;
}

export interface ChartDefinition {
  title: string;
  kind: 'area' | 'bar' | 'line';
  series: ChartSeries[];
  /** How a value shows in the tooltip. */
  unit?: 'seconds' | 'dollars';
}

const INDIGO = '#6366f1';
const GREEN = '#10b981';
const RED = '#ef4444';
const AMBER = '#f59e0b';
const SKY = '#0ea5e9';
/** Rejected calls (the caller's mistakes) are drawn apart from the app's own failures. */
const SLATE = '#94a3b8';

/** Successes, the app's errors and the rejected calls, bar by bar: the same in both dashboards. */
const OUTCOME_SERIES: ChartSeries[] = [
  { dataKey: 'success_count', name: 'Success', color: GREEN },
  { dataKey: 'error_count', name: 'Errors', color: RED },
  { dataKey: 'rejected_count', name: 'Rejected', color: SLATE },
];

/** The four charts of Global Analytics, over time_series.data. */
export const GLOBAL_CHARTS: readonly ChartDefinition[] = [
  { title: 'Invocations Over Time', kind: 'area', series: [{ dataKey: 'invocations', name: 'Invocations', color: INDIGO }] },
  { title: 'Success vs Error Rate', kind: 'bar', series: OUTCOME_SERIES },
  { title: 'Response Time Trend', kind: 'line', unit: 'seconds', series: [{ dataKey: 'avg_response_time', name: 'Avg Response Time', color: AMBER }] },
  {
    title: 'Token Usage',
    kind: 'area',
    series: [
      { dataKey: 'input_tokens', name: 'Input Tokens', color: SKY, stackId: 'tokens' },
      { dataKey: 'output_tokens', name: 'Output Tokens', color: INDIGO, stackId: 'tokens' },
    ],
  },
];

/** The four charts of Per-application analytics: usage.data and performance.data joined by date. */
export const APP_CHARTS: readonly ChartDefinition[] = [
  { title: 'Usage Over Time', kind: 'area', series: [{ dataKey: 'invocations', name: 'Invocations', color: INDIGO }] },
  { title: 'Performance Metrics', kind: 'bar', series: OUTCOME_SERIES },
  { title: 'Response Time Trend', kind: 'line', unit: 'seconds', series: [{ dataKey: 'response_time', name: 'Response Time', color: AMBER }] },
  { title: 'Revenue Trend', kind: 'area', unit: 'dollars', series: [{ dataKey: 'revenue', name: 'Revenue', color: GREEN }] },
];

export interface AppChartPoint {
  date: string;
  invocations: number;
  revenue: number;
  success_count: number;
  error_count: number;
  rejected_count: number;
  response_time: number;
}

/** One point per date of the usage series, with the performance figures of the same date (zero if absent). */
export function joinAppSeries(
  usage: readonly { date: string; invocations: number; revenue: number }[],
  performance: readonly { date: string; success_count: number; error_count: number; rejected_count: number; response_time: number }[],
): AppChartPoint[] {
  const byDate = new Map(performance.map((point) => [point.date, point]));
  return usage.map(({ date, invocations, revenue }) => {
    const other = byDate.get(date);
    return {
      date,
      invocations,
      revenue,
      success_count: other?.success_count ?? 0,
      error_count: other?.error_count ?? 0,
      rejected_count: other?.rejected_count ?? 0,
      response_time: other?.response_time ?? 0,
    };
  });
}

export interface ErrorSlice {
  name: string;
  value: number;
  color: string;
}

/** Top Errors: one slice per error group, Unknown Error for an empty type, colours cycling. */
export function errorSlices(errors: DashboardAnalytics['errors']): ErrorSlice[] {
  return errors.map((error, index) => ({
    name: error.error_type.trim() === '' ? UNKNOWN_ERROR : error.error_type,
    value: error.count,
    color: ERROR_COLORS[index % ERROR_COLORS.length] as string,
  }));
}

/** The pie's slice label: name and percent of all errors, e.g. "provider_error 42%". */
export function errorSliceLabel({ name, percent }: { name?: string; percent?: number }): string {
  return `${name ?? ''} ${((percent ?? 0) * 100).toFixed(0)}%`;
}
