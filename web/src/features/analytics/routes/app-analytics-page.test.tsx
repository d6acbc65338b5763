import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { RecentInvocations } from '@tollbooth/contract';
import { Route, Routes } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { makeApp, withTestAccessToken } from '@/testing/fake-apps-server';
import { renderWithProviders, signedInAuth } from '@/testing/test-utils';
import { fakeAnalyticsServer, makePerformance, makeUsage } from '../testing/fake-analytics-server';
import { AppAnalyticsPage } from './app-analytics-page';

withTestAccessToken();

const app = makeApp({ name: 'Haiku Writer', slug: 'haiku-writer', type: 'prompt' });
const createdAt = '2024-05-30T12:34:56.000Z';
/** A call that failed before it cost anything: no tokens, no charge, no model cost. */
const failedCall = (call: Pick<RecentInvocations[number], 'id' | 'end_user' | 'outcome' | 'error_type' | 'response_time'>): RecentInvocations[number] => ({
  ...call,
  status: 'error',
  input_tokens: 0,
  output_tokens: 0,
  price_cents: 0,
  charge_micros: 0,
  model_cost: 0,
  created_at: createdAt,
});
const invocations: RecentInvocations = [
  {
    id: '0123456789abcdef-0000',
    end_user: 'ada',
    status: 'success',
    outcome: 'success',
    error_type: '',
    response_time: 1.2345,
    input_tokens: 1200,
    output_tokens: 34,
    price_cents: 25,
    charge_micros: 250_000,
    model_cost: 0.01762,
    created_at: createdAt,
  },
  failedCall({ id: 'fedcba9876543210-0000', end_user: null, outcome: 'failed', error_type: 'provider_timeout', response_time: 60 }),
  failedCall({ id: 'aaaabbbbccccdddd-0000', end_user: 'grace', outcome: 'rejected', error_type: 'unauthorized', response_time: 0.004 }),
];
const usage = (days: number) => makeUsage(days, { total_invocations: 12345, total_users: 1234, total_revenue: 45.6, total_revenue_cents: 4560 });
const performance = (days: number) => makePerformance(days, { success_rate: 99.95, average_response_time: 1.2345 });

function renderPage(slug = 'haiku-writer') {
  return renderWithProviders(
    <Routes>
      <Route path="/applications/:slug/analytics" element={<AppAnalyticsPage />} />
    </Routes>,
    { route: `/applications/${slug}/analytics`, auth: signedInAuth() },
  );
}

const card = (label: string) => screen.getByTestId(`stat-${label}`);

describe('AppAnalyticsPage', () => {
  it('loads the app, then usage, performance and invocations together, and shows the cards', async () => {
    const server = fakeAnalyticsServer({ app, usage, performance, invocations, hold: true });
    renderPage();
    expect(screen.getByText('Loading analytics...')).toBeTruthy();
    server.release();

    // The first render of the file pays the cold start: a generous wait, for a loaded machine.
    expect(await screen.findByRole('heading', { name: 'Haiku Writer Analytics', level: 1 }, { timeout: 10_000 })).toBeTruthy();
    expect(screen.getByText('Haiku Writer · prompt')).toBeTruthy();
    await screen.findByText('12,345');
    expect(within(card('Total Invocations')).getByText('12,345')).toBeTruthy();
    expect(within(card('Unique Users')).getByText('1,234')).toBeTruthy();
    // It says what it counts, so it agrees with the Anonymous rows below (issue 25).
    expect(card('Unique Users').textContent).toContain('each calling account for calls that named none (Anonymous below)');
    expect(within(card('Success Rate')).getByText('100.0%')).toBeTruthy();
    expect(within(card('Avg Response Time')).getByText('1.23s')).toBeTruthy();
    expect(server.calls()[0]).toBe('GET /api/app/haiku-writer/');
    expect(server.calls().slice(1).sort()).toEqual([
      'GET /api/app/haiku-writer/analytics/invocations/?limit=20',
      'GET /api/app/haiku-writer/analytics/performance/?days=30',
      'GET /api/app/haiku-writer/analytics/usage/?days=30',
    ]);
  });

  it('shows subscription revenue in other currencies apart, each in its own unit, never added to the dollars', async () => {
    fakeAnalyticsServer({
      app,
      usage: (days: number) =>
        makeUsage(days, { total_revenue: 45.6, total_revenue_cents: 4560, other_currency_revenue: [{ currency: 'vnd', amount_minor: 100_000 }] }),
      performance,
      invocations,
    });
    renderPage();
    expect((await screen.findByTestId('other-currency-revenue', {}, { timeout: 10_000 })).textContent).toContain('₫100,000');
    expect(within(card('Revenue')).getByText('$45.60')).toBeTruthy();
  });

  it('draws the four charts', async () => {
    fakeAnalyticsServer({ app, usage, performance, invocations });
    renderPage();
    await screen.findByText('12,345');
    const titles = ['Usage Over Time', 'Performance Metrics', 'Response Time Trend', 'Revenue Trend'];
    expect(titles.map((title) => screen.getByRole('region', { name: title }).dataset.chartKind)).toEqual(['area', 'bar', 'line', 'area']);
  });

  it('highlights the period and reloads usage and performance when it changes', async () => {
    const server = fakeAnalyticsServer({ app, usage, performance, invocations });
    renderPage();
    await screen.findByText('12,345');
    const period = within(screen.getByRole('group', { name: 'Period' }));
    expect(period.getByRole('button', { name: '30d' }).getAttribute('aria-pressed')).toBe('true');
    fireEvent.click(period.getByRole('button', { name: '7d' }));
    expect(period.getByRole('button', { name: '7d' }).getAttribute('aria-pressed')).toBe('true');
    expect(period.getByRole('button', { name: '30d' }).getAttribute('aria-pressed')).toBe('false');
    await waitFor(() => expect(server.calls()).toContain('GET /api/app/haiku-writer/analytics/usage/?days=7'));
    expect(server.calls()).toContain('GET /api/app/haiku-writer/analytics/performance/?days=7');
    await screen.findByText('12,345');
  });

  it('lists recent invocations with truncated ids, users, coloured statuses, seconds, tokens and local times', async () => {
    fakeAnalyticsServer({ app, usage, performance, invocations });
    renderPage();
    const table = within(await screen.findByRole('region', { name: 'Recent Invocations' }));
    expect(table.getAllByRole('columnheader').map((cell) => cell.textContent)).toEqual([
      'ID',
      'User',
      'Status',
      'Error Type',
      'Response Time',
      'Tokens',
      'Price',
      'Model Cost',
      'Created At',
    ]);
    const [first, second, third] = table.getAllByTestId('invocation-row').map((row) => within(row));
    expect(first!.getByText('success').className).toContain('green');
    // What the caller paid ($0.25) and what the answer cost upstream, to the micro-dollar.
    for (const text of ['01234567...', 'ada', '1.234s', '1,234', '$0.25', '$0.01762', new Date(createdAt).toLocaleString(), '—']) {
      expect(first!.getByText(text)).toBeTruthy();
    }
    expect(second!.getByText('failed').className).toContain('red');
    for (const text of ['fedcba98...', 'Anonymous', 'provider_timeout', '60.000s', '0']) expect(second!.getByText(text)).toBeTruthy();
    // A caller's mistake: rejected, in amber, with its type.
    expect(third!.getByText('grace')).toBeTruthy();
    expect(third!.getByText('rejected').className).toContain('amber');
    expect(third!.getByText('unauthorized')).toBeTruthy();
  });

  it('shows failed calls by type, and rejected calls apart, by type, with what each means', async () => {
    const withOutcomes = (days: number) =>
      makePerformance(days, {
        success_rate: 100,
        failed_count: 2,
        rejected_count: 9,
        errors: [{ error_type: 'provider_timeout', count: 2 }],
        rejections: [
          { error_type: 'unauthorized', count: 5 },
          { error_type: 'invalid_param', count: 3 },
          { error_type: 'not_found', count: 1 },
        ],
      });
    fakeAnalyticsServer({ app, usage, performance: withOutcomes, invocations });
    renderPage();
    const rejected = within(await screen.findByRole('region', { name: 'Rejected Calls' }));
    expect(rejected.getByTestId('rejected-total').textContent).toBe('9 rejected');
    expect(rejected.getByText(/not counted against the success rate/)).toBeTruthy();
    expect(rejected.getAllByTestId('rejection-group').map((group) => group.textContent)).toEqual([
      'Missing or bad API key (401) unauthorized5',
      'Invalid inputs (400) invalid_param3',
      'Private or unknown app, or conversation (404) not_found1',
    ]);
    const failed = within(screen.getByRole('region', { name: 'Top Errors' }));
    expect(failed.getAllByTestId('error-group').map((group) => group.textContent)).toEqual(['provider_timeout2']);
    expect(within(card('Success Rate')).getByText('100.0%')).toBeTruthy();
  });

  it('says so when no call was rejected, and shows no Top Errors without failures', async () => {
    fakeAnalyticsServer({ app, usage, performance, invocations });
    renderPage();
    const rejected = within(await screen.findByRole('region', { name: 'Rejected Calls' }));
    expect(rejected.getByText('No rejected calls in this period.')).toBeTruthy();
    expect(screen.queryByRole('region', { name: 'Top Errors' })).toBeNull();
  });

  it('says No invocations found. without calls', async () => {
    fakeAnalyticsServer({ app, usage, performance, invocations: [] });
    renderPage();
    expect(await screen.findByText('No invocations found.')).toBeTruthy();
    expect(screen.queryByTestId('invocation-row')).toBeNull();
  });

  it('exports both CSV files with the bearer token and the period', async () => {
    const server = fakeAnalyticsServer({ app, usage, performance, invocations, csv: 'id,created_at\r\n' });
    URL.createObjectURL = vi.fn(() => 'blob:csv');
    URL.revokeObjectURL = vi.fn();
    const clicks: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicks.push(this.download);
    });
    renderPage();
    await screen.findByText('12,345');
    fireEvent.click(within(screen.getByRole('group', { name: 'Period' })).getByRole('button', { name: '90d' }));
    fireEvent.click(screen.getByRole('button', { name: 'Export Usage CSV' }));
    await waitFor(() => expect(clicks).toEqual(['haiku-writer-usage-90d.csv']));
    // Both buttons stay disabled until the first export has finished.
    const exportInvocations = screen.getByRole('button', { name: 'Export Invocations CSV' });
    await waitFor(() => expect((exportInvocations as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(exportInvocations);
    await waitFor(() => expect(clicks).toEqual(['haiku-writer-usage-90d.csv', 'haiku-writer-invocations-90d.csv']));
    expect(server.calls()).toContain('GET /api/app/haiku-writer/analytics/usage.csv?days=90');
    // The invocations CSV is every call of the period shown, not the newest 1,000 (issue 59's streamed export).
    expect(server.calls()).toContain('GET /api/app/haiku-writer/analytics/invocations.csv?days=90');
    const csvCall = server.fetchMock.mock.calls.find(([input]) => String(input).includes('.csv'));
    expect((csvCall?.[1]?.headers as Record<string, string> | undefined)?.Authorization).toBe('Bearer test-token');
  });

  it('shows – as the success rate of an app whose calls were all rejected (no data, not 0.0%)', async () => {
    fakeAnalyticsServer({
      app,
      invocations,
      usage: (days: number) => makeUsage(days, { total_invocations: 4 }),
      performance: (days: number) => makePerformance(days, { success_rate: 0, rejected_count: 4, rejections: [{ error_type: 'invalid_param', count: 4 }] }),
    });
    renderPage();
    await screen.findByRole('heading', { name: 'Haiku Writer Analytics', level: 1 }, { timeout: 10_000 });
    await waitFor(() => expect(within(card('Success Rate')).getByText('–')).toBeTruthy());
  });

  it('shows the Error box when a call fails, or when the app is not found', async () => {
    fakeAnalyticsServer({ app, usage, performance: 'error', invocations });
    const { unmount } = renderPage();
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Failed to load analytics data')).toBeTruthy();
    unmount();

    fakeAnalyticsServer({ app });
    renderPage('someone-elses-app');
    expect(within(await screen.findByRole('alert')).getByText('Failed to load analytics data')).toBeTruthy();
  });

  it('says No data available when usage or performance is missing', async () => {
    fakeAnalyticsServer({ app, usage, invocations, performance: () => null as never });
    renderPage();
    expect(await screen.findByText('No data available')).toBeTruthy();
  });
});
