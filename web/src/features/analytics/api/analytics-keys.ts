// The query-key factory for analytics: everything hangs under ['analytics'], the period is part of
// every periodic key, so switching the period loads (and caches) that period's answers.
import type { AnalyticsPeriod } from '../lib/chart.utils';

export const analyticsKeys = {
  all: ['analytics'] as const,
  dashboard: (days: AnalyticsPeriod) => [...analyticsKeys.all, 'dashboard', days] as const,
  app: (slug: string) => [...analyticsKeys.all, 'app', slug] as const,
  usage: (slug: string, days: AnalyticsPeriod) => [...analyticsKeys.app(slug), 'usage', days] as const,
  performance: (slug: string, days: AnalyticsPeriod) => [...analyticsKeys.app(slug), 'performance', days] as const,
  invocations: (slug: string, limit: number) => [...analyticsKeys.app(slug), 'invocations', limit] as const,
};

/** The analytics paths of one application. */
export const appAnalyticsPath = (slug: string) => `/app/${encodeURIComponent(slug)}/analytics/`;
