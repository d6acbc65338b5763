// A fake of the analytics endpoints (and GET /api/app/{slug}/) over a stubbed fetch, for the
// screens' tests. Answers are given per period; every call is recorded as "METHOD /path?query".
import type { Application, DashboardAnalytics, PerformanceAnalytics, RecentInvocations, UsageAnalytics } from '@tollbooth/contract';
import { vi } from 'vitest';
import { callsOf, jsonResponse } from '@/testing/test-utils';

const DAY_MS = 86_400_000;

/** `count` ISO days ending 2024-05-30. */
export function isoDays(count: number): string[] {
  const end = Date.UTC(2024, 4, 30);
  return Array.from({ length: count }, (_, i) => new Date(end - (count - 1 - i) * DAY_MS).toISOString().slice(0, 10));
}

export function makeDashboard(days = 30, overrides: Partial<DashboardAnalytics> = {}): DashboardAnalytics {
  return {
    overview: { total_applications: 0, total_invocations: 0, total_users: 0, success_rate: 0, rejected_count: 0 },
    time_series: {
      data: isoDays(days).map((date) => ({
        date,
        invocations: 0,
        success_count: 0,
        error_count: 0,
        rejected_count: 0,
        avg_response_time: 0,
        input_tokens: 0,
        output_tokens: 0,
      })),
    },
    applications: [],
    errors: [],
    rejections: [],
    ...overrides,
  };
}

export function makeUsage(days = 30, overrides: Partial<UsageAnalytics> = {}): UsageAnalytics {
  return {
    total_invocations: 0,
    total_users: 0,
    other_currency_revenue: [],
    total_revenue: 0,
    total_revenue_cents: 0,
    total_platform_fee_cents: 0,
    total_model_cost: 0,
    total_model_cost_micros: 0,
    total_net: 0,
    data: isoDays(days).map((date) => ({ date, invocations: 0, revenue: 0, model_cost: 0, net: 0 })),
    ...overrides,
  };
}

export function makePerformance(days = 30, overrides: Partial<PerformanceAnalytics> = {}): PerformanceAnalytics {
  return {
    success_rate: 0,
    average_response_time: 0,
    failed_count: 0,
    rejected_count: 0,
    errors: [],
    rejections: [],
    data: isoDays(days).map((date) => ({ date, success_count: 0, error_count: 0, rejected_count: 0, response_time: 0 })),
    ...overrides,
  };
}

type Answer<T> = T | 'error' | ((days: number) => T | 'error');

interface FakeAnalyticsOptions {
  app?: Application;
  dashboard?: Answer<DashboardAnalytics>;
  usage?: Answer<UsageAnalytics>;
  performance?: Answer<PerformanceAnalytics>;
  invocations?: RecentInvocations | 'error';
  csv?: string;
  /** Holds every answer until release() is called. */
  hold?: boolean;
}

const failure = () => jsonResponse({ code: 'internal_error', message: 'Database unavailable', status: 500 }, 500);
const notFound = () => jsonResponse({ code: 'not_found', message: 'Application not found', status: 404 }, 404);

export function fakeAnalyticsServer(options: FakeAnalyticsOptions = {}) {
  let release: () => void = () => {};
  let gate = options.hold ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve();

  const answer = <T>(value: Answer<T> | undefined, fallback: (days: number) => T, days: number) => {
    const resolved = typeof value === 'function' ? (value as (days: number) => T | 'error')(days) : (value ?? fallback(days));
    return resolved === 'error' ? failure() : jsonResponse(resolved);
  };

  const fetchMock = vi.fn(async (input: string, _init?: RequestInit) => {
    await gate;
    const url = new URL(input, 'http://localhost');
    const days = Number(url.searchParams.get('days') ?? 30);
    if (url.pathname === '/api/analytics/dashboard/') return answer(options.dashboard, (d) => makeDashboard(d), days);
    const match = /^\/api\/app\/([^/]+)\/(.*)$/.exec(url.pathname);
    if (!match) return jsonResponse({ code: 'not_found', message: 'Not found', status: 404 }, 404);
    const [, slug, rest] = match;
    if (!options.app || options.app.slug !== decodeURIComponent(slug as string)) return notFound();
    if (rest === '') return jsonResponse(options.app);
    if (rest === 'analytics/usage/') return answer(options.usage, (d) => makeUsage(d), days);
    if (rest === 'analytics/performance/') return answer(options.performance, (d) => makePerformance(d), days);
    if (rest === 'analytics/invocations/') return options.invocations === 'error' ? failure() : jsonResponse(options.invocations ?? []);
    if (rest === 'analytics/invocations.csv' || rest === 'analytics/usage.csv') {
      const name = rest === 'analytics/usage.csv' ? `${slug}-usage-${days}d.csv` : `${slug}-invocations-${days}d.csv`;
      return new Response(options.csv ?? 'id\r\n', {
        status: 200,
        headers: { 'content-type': 'text/csv', 'content-disposition': `attachment; filename="${name}"` },
      });
    }
    return jsonResponse({ code: 'not_found', message: 'Not found', status: 404 }, 404);
  });
  vi.stubGlobal('fetch', fetchMock);

  /** The calls made so far as "METHOD /path?query" strings. */
  const calls = () => callsOf(fetchMock);

  return {
    fetchMock,
    calls,
    release: () => release(),
    hold: () => {
      gate = new Promise<void>((resolve) => (release = resolve));
    },
  };
}
