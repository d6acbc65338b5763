// The operator page: shown to accounts the server answers 200 for (ADMIN_EMAILS), with the period's
// money in dollars, negative nets marked, by provider, model, account and app; anyone the server
// answers 404 gets the not-found page and no Operator link in the user menu.
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { OperatorOverview, OperatorTopCosts } from '@tollbooth/contract';
import { Route, Routes } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { UserMenu } from '@/app/layout/user-menu';
import { withTestAccessToken } from '@/testing/fake-apps-server';
import { jsonResponse, renderWithProviders, signedInAuth } from '@/testing/test-utils';
import { OperatorPage } from './operator-page';

withTestAccessToken();

const figures = { calls: 1015, test_runs: 5, paid_cents: 1060, fee_cents: 106, model_cost_micros: 48_262_346, creators_net_micros: 954 * 10_000 - 48_262_346 };
const overview = (days: number): OperatorOverview => ({
  days,
  totals: figures,
  daily: Array.from({ length: days }, (_, i) => ({
    date: new Date(Date.UTC(2026, 10, 27) - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10),
    ...(i === days - 1 ? figures : { calls: 0, test_runs: 0, paid_cents: 0, fee_cents: 0, model_cost_micros: 0, creators_net_micros: 0 }),
  })),
  by_provider: [{ provider: 'openai', ...figures }],
  by_model: [{ provider: 'openai', model: 'gpt-4-turbo', ...figures }],
  other_currency_revenue: [
    { currency: 'jpy', amount_minor: 1500 },
    { currency: 'vnd', amount_minor: 100_000 },
  ],
});
const top: OperatorTopCosts = {
  days: 30,
  accounts: [
    {
      user_id: 'u1',
      email: 'cara@example.com',
      display_name: 'Cara Creator',
      apps: 2,
      calls: 1015,
      test_runs: 1,
      paid_cents: 1060,
      fee_cents: 106,
      model_cost_micros: 48_262_353,
      creators_net_micros: -38_722_353,
    },
  ],
  apps: [
    {
      app_id: 'a1',
      name: 'Costly Essay',
      slug: 'costly-essay',
      status: 'live',
      deleted: false,
      price_cents: 1,
      owner_email: 'cara@example.com',
      calls: 1005,
      paid_cents: 1010,
      fee_cents: 101,
      model_cost_micros: 48_250_001,
      creators_net_micros: -39_160_001,
    },
  ],
};

function fakeOperatorServer(operator: boolean) {
  const fetchMock = vi.fn(async (input: RequestInfo | URL) => {
    const url = new URL(String(input), 'http://localhost');
    if (!operator) return jsonResponse({ code: 'not_found', message: `Route GET ${url.pathname} not found`, status: 404 }, 404);
    if (url.pathname === '/api/operator/access/') return jsonResponse({ operator: true, email: 'boss@example.com' });
    if (url.pathname === '/api/operator/overview/') return jsonResponse(overview(Number(url.searchParams.get('days'))));
    if (url.pathname === '/api/operator/top-costs/') return jsonResponse({ ...top, days: Number(url.searchParams.get('days')) });
    return jsonResponse({ code: 'not_found', message: 'Not found', status: 404 }, 404);
  });
  vi.stubGlobal('fetch', fetchMock);
  return () => fetchMock.mock.calls.map(([input]) => String(input).replace(/^https?:\/\/[^/]+/, ''));
}

function renderPage() {
  renderWithProviders(
    <Routes>
      <Route path="/operator" element={<OperatorPage notFound={<p>Page not found</p>} />} />
    </Routes>,
    { route: '/operator', auth: signedInAuth() },
  );
}

describe('OperatorPage', () => {
  it('shows the money of the period, by provider, model, account and app, and changes period', async () => {
    const calls = fakeOperatorServer(true);
    renderPage();
    expect(await screen.findByRole('heading', { name: 'Operator', level: 1 })).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('operator-stat-Callers paid').textContent).toContain('$10.60'));
    expect(screen.getByTestId('operator-stat-Platform fees').textContent).toContain('$1.06');
    // Other currencies apart, each in its own unit, never as dollars.
    expect(screen.getByTestId('operator-other-currencies').textContent).toContain('¥1,500 · ₫100,000');
    expect(screen.getByTestId('operator-stat-Model cost').textContent).toContain('$48.26');
    // 9.54 − 48.262346 = −38.722346 dollars.
    expect(screen.getByTestId("operator-stat-Creators' net").textContent).toContain('-$38.72');
    expect(screen.getByRole('region', { name: 'Money per day' })).toBeTruthy();
    expect(within(screen.getByRole('region', { name: 'By model' })).getByText('gpt-4-turbo')).toBeTruthy();
    const accounts = within(await screen.findByRole('region', { name: 'Accounts that cost the most' }));
    expect(accounts.getByText('Cara Creator')).toBeTruthy();
    expect(accounts.getByText('-$38.72')).toBeTruthy();
    expect(within(screen.getByRole('region', { name: 'Apps that cost the most' })).getByText('costly-essay')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: '7d' }));
    await waitFor(() => expect(calls()).toContain('/api/operator/overview/?days=7'));
    expect(calls()).toContain('/api/operator/top-costs/?days=7');
  });

  it('is the not-found page for anyone else, who never asks for the figures', async () => {
    const calls = fakeOperatorServer(false);
    renderPage();
    expect(await screen.findByText('Page not found')).toBeTruthy();
    expect(calls()).toEqual(['/api/operator/access/']);
  });
});

describe('the user menu', () => {
  const openMenu = async () => {
    renderWithProviders(<UserMenu initial="B" label="Boss" email="boss@example.com" onSignOut={() => {}} />, { auth: signedInAuth() });
    fireEvent.click(screen.getByTestId('user-menu-button'));
    return within(await screen.findByRole('menu'));
  };

  it('links the operator page for operators', async () => {
    fakeOperatorServer(true);
    const menu = await openMenu();
    expect(await menu.findByRole('menuitem', { name: 'Operator' })).toBeTruthy();
  });

  it('does not for anyone else', async () => {
    const calls = fakeOperatorServer(false);
    const menu = await openMenu();
    await waitFor(() => expect(calls()).toEqual(['/api/operator/access/']));
    expect(menu.getByRole('menuitem', { name: 'Profile' })).toBeTruthy();
    expect(menu.queryByRole('menuitem', { name: 'Operator' })).toBeNull();
  });
});
