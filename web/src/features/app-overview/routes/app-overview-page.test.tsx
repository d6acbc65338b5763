import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fakeAppsServer, makeApp, makeUsage, withTestAccessToken } from '@/testing/fake-apps-server';
import { jsonResponse, renderWithProviders, signedInAuth } from '@/testing/test-utils';
import { DashboardPage } from './app-overview-page';

withTestAccessToken();

const promptApp = makeApp({ name: 'Haiku Writer', slug: 'haiku-writer', type: 'prompt', status: 'live' });
const workflowApp = makeApp({ name: 'Support Bot', slug: 'support-bot', type: 'workflow', status: 'archived' });

function renderDashboard() {
  return renderWithProviders(<DashboardPage />, { route: '/dashboard', auth: signedInAuth() });
}

const row = (slug: string) => screen.getByTestId(`app-row-${slug}`);

describe('DashboardPage', () => {
  it('shows the title, the links and the totals of every application', async () => {
    fakeAppsServer({
      apps: [promptApp, workflowApp],
      usage: {
        'haiku-writer': makeUsage({ total_invocations: 1200, total_revenue_cents: 1234 }),
        'support-bot': makeUsage({ total_invocations: 34, total_revenue_cents: 66 }),
      },
    });
    renderDashboard();

    expect(screen.getByRole('heading', { name: 'Applications' })).toBeTruthy();
    expect(screen.getByText('Manage your applications and view performance insights.')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Global Analytics' }).getAttribute('href')).toBe('/analytics');
    expect(screen.getByRole('link', { name: 'Create Application' }).getAttribute('href')).toBe('/applications/create');

    await screen.findByText('Haiku Writer');
    const card = (label: string) => screen.getByText(label).parentElement as HTMLElement;
    expect(within(card('Total Applications')).getByText('2')).toBeTruthy();
    await waitFor(() => expect(within(card('Total Invocations')).getByText('1,234')).toBeTruthy());
    expect(within(card('Total Revenue')).getByText('$13.00')).toBeTruthy();

    expect(within(row('haiku-writer')).getByText('1,200')).toBeTruthy();
    expect(within(row('haiku-writer')).getByText('$12.34')).toBeTruthy();
    expect(within(row('support-bot')).getByText('34')).toBeTruthy();
    expect(within(row('support-bot')).getByText('$0.66')).toBeTruthy();
  });

  it('offers the actions of each row by type, with coloured badges', async () => {
    fakeAppsServer({ apps: [promptApp, workflowApp] });
    renderDashboard();
    await screen.findByText('Haiku Writer');

    const headers = screen.getAllByRole('columnheader').map((cell) => cell.textContent);
    expect(headers).toEqual(['Name', 'Type', 'Status', 'Invocations', 'Revenue', 'Actions']);

    const prompt = within(row('haiku-writer'));
    expect(prompt.getByText('haiku-writer')).toBeTruthy();
    expect(prompt.getByRole('link', { name: 'Haiku Writer' }).getAttribute('href')).toBe('/applications/haiku-writer');
    expect(prompt.getByRole('link', { name: 'Manage' }).getAttribute('href')).toBe('/prompts/haiku-writer');
    expect(prompt.getByRole('link', { name: 'Analytics' }).getAttribute('href')).toBe('/applications/haiku-writer/analytics');
    expect(prompt.getByRole('button', { name: 'Download' })).toBeTruthy();
    expect(prompt.getByText('prompt').dataset.tone).toBe('green');
    expect(prompt.getByText('live').dataset.tone).toBe('green');

    const workflow = within(row('support-bot'));
    expect(workflow.getByRole('link', { name: 'Manage' }).getAttribute('href')).toBe('/workflows/support-bot');
    expect(workflow.getByRole('link', { name: 'Analytics' }).getAttribute('href')).toBe('/applications/support-bot/analytics');
    expect(workflow.getByRole('button', { name: 'Download' })).toBeTruthy();
    expect(workflow.getByText('workflow').dataset.tone).toBe('blue');
    expect(workflow.getByText('archived').dataset.tone).toBe('gray');

    const quickLinks = within(screen.getByRole('navigation', { name: 'Quick links' }));
    expect(quickLinks.getAllByRole('link').map((link) => link.getAttribute('href'))).toEqual(['/applications/create', '/prompts', '/workflows', '/analytics']);
    expect(quickLinks.getByRole('link', { name: /Manage Prompts/ })).toBeTruthy();
    expect(quickLinks.getByRole('link', { name: /Manage Workflows/ })).toBeTruthy();
    expect(quickLinks.getByRole('link', { name: /View Analytics/ })).toBeTruthy();
  });

  it('fetches usage once per application and only logs a failure for one of them', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const server = fakeAppsServer({
      apps: [promptApp, workflowApp],
      usage: { 'haiku-writer': makeUsage({ total_invocations: 5, total_revenue_cents: 500 }), 'support-bot': 'error' },
    });
    renderDashboard();

    await waitFor(() => expect(within(row('haiku-writer')).getByText('$5.00')).toBeTruthy());
    await waitFor(() => expect(error).toHaveBeenCalled());
    expect(within(row('support-bot')).getAllByText('—')).toHaveLength(2);
    expect(screen.queryByRole('alert')).toBeNull();
    expect(server.calls().filter((call) => call.endsWith('/analytics/usage/'))).toEqual([
      'GET /api/app/haiku-writer/analytics/usage/',
      'GET /api/app/support-bot/analytics/usage/',
    ]);
  });

  it('shows the empty state without applications', async () => {
    fakeAppsServer({ apps: [] });
    renderDashboard();

    // The first-run panel (issue 61): where to start, in one glance.
    expect(await screen.findByRole('heading', { name: 'Start here' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Build a prompt app' }).getAttribute('href')).toBe('/prompt-builder');
    expect(screen.getByRole('link', { name: 'Wrap a Dify workflow' }).getAttribute('href')).toBe('/applications/create?type=workflow');
    expect(screen.getByText(/pay their model cost from your credits/)).toBeTruthy();
    expect(screen.queryByRole('table')).toBeNull();
    expect(screen.getByText('$0.00')).toBeTruthy();
  });

  it('shows the Error box when the list fails to load', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => jsonResponse({ code: 'internal', message: 'Database unavailable', status: 500 }, 500)),
    );
    renderDashboard();

    const alert = await screen.findByRole('alert', {}, { timeout: 5000 });
    expect(within(alert).getByText('Error')).toBeTruthy();
    expect(within(alert).getByText('Failed to load dashboard data')).toBeTruthy();
  });

  it('downloads a row and alerts when the download fails', async () => {
    const alert = vi.spyOn(window, 'alert').mockImplementation(() => {});
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const server = fakeAppsServer({ apps: [makeApp({ name: 'Chatty', slug: 'chatty', interaction_mode: 'chat' })] });
    renderDashboard();

    fireEvent.click(await within(await screen.findByTestId('app-row-chatty')).findByRole('button', { name: 'Download' }));
    await waitFor(() => expect(alert).toHaveBeenCalledWith('Failed to download app. Please try again.'));
    expect(server.calls()).toContain('GET /api/app/chatty/download-frontend?type=chat');
    expect(within(row('chatty')).getByRole('button', { name: 'Download' })).toBeTruthy();
  });
});
