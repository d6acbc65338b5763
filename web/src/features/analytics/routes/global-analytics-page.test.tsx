import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { withTestAccessToken } from '@/testing/fake-apps-server';
import { renderWithProviders, signedInAuth } from '@/testing/test-utils';
import { fakeAnalyticsServer, makeDashboard } from '../testing/fake-analytics-server';
import { GlobalAnalyticsPage } from './global-analytics-page';

withTestAccessToken();

const lastUsed = '2024-05-30T12:00:00.000Z';

const dashboard = (days: number) =>
  makeDashboard(days, {
    overview: { total_applications: 2, total_invocations: 12345, total_users: 1500, success_rate: 66.67, rejected_count: 1234 },
    applications: [
      {
        application_name: 'Haiku Writer',
        application_slug: 'haiku-writer',
        application_type: 'prompt',
        invocations: 12000,
        success_rate: 71.43,
        rejected_count: 1200,
        avg_response_time: 1.32,
        last_used: lastUsed,
      },
      {
        application_name: 'Support Flow',
        application_slug: 'support-flow',
        application_type: 'workflow',
        invocations: 345,
        success_rate: 0,
        rejected_count: 34,
        avg_response_time: 0,
        last_used: null,
      },
    ],
    errors: [
      { error_type: 'provider_error', count: 30 },
      { error_type: '', count: 10 },
    ],
    rejections: [
      { error_type: 'unauthorized', count: 1000 },
      { error_type: 'rate_limited', count: 234 },
    ],
  });

function renderPage() {
  return renderWithProviders(<GlobalAnalyticsPage />, { route: '/analytics', auth: signedInAuth() });
}

const card = (label: string) => screen.getByTestId(`stat-${label}`);

describe('GlobalAnalyticsPage', () => {
  it('shows the title, a spinner while loading, then the cards with their formats', async () => {
    const server = fakeAnalyticsServer({ dashboard, hold: true });
    renderPage();
    expect(screen.getByRole('heading', { name: 'Global Analytics', level: 1 })).toBeTruthy();
    expect(screen.getByText('Comprehensive analytics and insights across all your applications.')).toBeTruthy();
    expect(screen.getByText('Loading analytics...')).toBeTruthy();
    server.release();

    await screen.findByText('12,345');
    expect(within(card('Applications')).getByText('2')).toBeTruthy();
    expect(within(card('Total Invocations')).getByText('12,345')).toBeTruthy();
    expect(within(card('Active Users')).getByText('1,500')).toBeTruthy();
    expect(within(card('Success Rate')).getByText('66.7%')).toBeTruthy();
    expect(server.calls()).toEqual(['GET /api/analytics/dashboard/?days=30']);
  });

  it('highlights 30d by default and reloads when the period changes', async () => {
    const server = fakeAnalyticsServer({ dashboard });
    renderPage();
    await screen.findByText('12,345');
    const period = within(screen.getByRole('group', { name: 'Period' }));
    expect(period.getAllByRole('button').map((button) => button.textContent)).toEqual(['7d', '30d', '90d']);
    expect(period.getByRole('button', { name: '30d' }).getAttribute('aria-pressed')).toBe('true');
    expect(period.getByRole('button', { name: '7d' }).getAttribute('aria-pressed')).toBe('false');

    fireEvent.click(period.getByRole('button', { name: '7d' }));
    expect(period.getByRole('button', { name: '7d' }).getAttribute('aria-pressed')).toBe('true');
    await waitFor(() => expect(server.calls()).toContain('GET /api/analytics/dashboard/?days=7'));
    fireEvent.click(period.getByRole('button', { name: '90d' }));
    await waitFor(() => expect(server.calls()).toContain('GET /api/analytics/dashboard/?days=90'));
    await screen.findByText('12,345');
  });

  it('draws the four charts', async () => {
    fakeAnalyticsServer({ dashboard });
    renderPage();
    await screen.findByText('12,345');
    const titles = ['Invocations Over Time', 'Success vs Error Rate', 'Response Time Trend', 'Token Usage'];
    for (const title of titles) expect(screen.getByRole('region', { name: title }).querySelector('.recharts-responsive-container')).toBeTruthy();
    expect(titles.map((title) => screen.getByRole('region', { name: title }).dataset.chartKind)).toEqual(['area', 'bar', 'line', 'area']);
    const bars = screen.getByRole('region', { name: 'Success vs Error Rate' });
    await waitFor(() => expect(within(bars).getByText('Success')).toBeTruthy());
    expect(within(bars).getByText('Errors')).toBeTruthy();
    expect(within(bars).getByText('Rejected')).toBeTruthy();
  });

  it('lists the applications with badges, rates, times and last use', async () => {
    fakeAnalyticsServer({ dashboard });
    renderPage();
    await screen.findByText('12,345');
    const table = within(screen.getByRole('region', { name: 'Application Performance' }));
    expect(table.getAllByRole('columnheader').map((cell) => cell.textContent)).toEqual([
      'Application',
      'Type',
      'Invocations',
      'Success Rate',
      'Rejected',
      'Avg Response Time',
      'Last Used',
    ]);
    const haiku = within(screen.getByTestId('performance-row-haiku-writer'));
    expect(haiku.getByRole('link', { name: 'Haiku Writer' }).getAttribute('href')).toBe('/applications/haiku-writer/analytics');
    expect(haiku.getByText('prompt').dataset.tone).toBe('green');
    expect(haiku.getByText('12,000')).toBeTruthy();
    expect(haiku.getByText('71.4%')).toBeTruthy();
    expect(haiku.getByText('1,200')).toBeTruthy();
    expect(haiku.getByText('1.320s')).toBeTruthy();
    expect(haiku.getByText(new Date(lastUsed).toLocaleDateString())).toBeTruthy();
    const flow = within(screen.getByTestId('performance-row-support-flow'));
    expect(flow.getByText('workflow').dataset.tone).toBe('blue');
    expect(flow.getByText('0.0%')).toBeTruthy();
    expect(flow.getByText('0.000s')).toBeTruthy();
    expect(flow.getByText('Never')).toBeTruthy();
  });

  it('shows Top Errors only when errors exist, Unknown Error for an empty type', async () => {
    fakeAnalyticsServer({ dashboard });
    const { unmount } = renderPage();
    await screen.findByText('12,345');
    const errors = within(screen.getByRole('region', { name: 'Top Errors' }));
    const groups = errors.getAllByTestId('error-group');
    expect(groups.map((group) => group.textContent)).toEqual(['provider_error30', 'Unknown Error10']);
    expect(groups.map((group) => (group.querySelector('[data-color]') as HTMLElement).dataset.color)).toEqual(['#0088FE', '#00C49F']);
    unmount();

    fakeAnalyticsServer({ dashboard: (days) => ({ ...dashboard(days), errors: [] }) });
    renderPage();
    await screen.findByText('12,345');
    expect(screen.queryByRole('region', { name: 'Top Errors' })).toBeNull();
  });

  it('shows rejected calls apart, by type, with what each means; an empty period says so', async () => {
    fakeAnalyticsServer({ dashboard });
    const { unmount } = renderPage();
    await screen.findByText('12,345');
    const rejected = within(screen.getByRole('region', { name: 'Rejected Calls' }));
    expect(rejected.getByTestId('rejected-total').textContent).toBe('1,234 rejected');
    expect(rejected.getAllByTestId('rejection-group').map((group) => group.textContent)).toEqual([
      'Missing or bad API key (401) unauthorized1,000',
      'Rate limited (429) rate_limited234',
    ]);
    // The app's own failures stay in Top Errors, the callers' mistakes are not there.
    expect(within(screen.getByRole('region', { name: 'Top Errors' })).queryByText('unauthorized')).toBeNull();
    unmount();

    fakeAnalyticsServer({ dashboard: (days) => makeDashboard(days, { overview: { ...dashboard(days).overview, rejected_count: 0 } }) });
    renderPage();
    await screen.findByText('12,345');
    expect(within(screen.getByRole('region', { name: 'Rejected Calls' })).getByText('No rejected calls in this period.')).toBeTruthy();
  });

  it('says so when there are no applications yet', async () => {
    fakeAnalyticsServer({ dashboard: (days) => makeDashboard(days) });
    renderPage();
    const table = within(await screen.findByRole('region', { name: 'Application Performance' }));
    expect(table.getByText('No applications yet: create one and its calls will show here.')).toBeTruthy();
  });

  it('shows the Error box when loading fails', async () => {
    fakeAnalyticsServer({ dashboard: 'error' });
    renderPage();
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Error')).toBeTruthy();
    expect(within(alert).getByText('Failed to load analytics data')).toBeTruthy();
  });

  it('only logs a 401', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    vi.stubGlobal(
      'fetch',
      vi.fn(
        async () =>
          new Response(JSON.stringify({ code: 'unauthorized', message: 'Expired', status: 401 }), {
            status: 401,
            headers: { 'content-type': 'application/json' },
          }),
      ),
    );
    renderPage();
    await waitFor(() => expect(warn).toHaveBeenCalled());
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('says No data available when the answer is empty', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response(null, { status: 204 })),
    );
    renderPage();
    expect(await screen.findByText('No data available')).toBeTruthy();
  });

  it('says so in the Application Performance table when there are no applications', async () => {
    fakeAnalyticsServer({ dashboard: makeDashboard(30) });
    renderPage();
    const table = within(await screen.findByRole('region', { name: 'Application Performance' }));
    expect(table.getByText('No applications yet. Each application you create appears here with its calls.')).toBeTruthy();
  });
});
