// The Money page: both balances, the whole ledger statement (every page of it), its filters, and a
// CSV export of exactly the rows shown; without Stripe, the top-up shows the not-configured notice.
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, renderWithProviders, signedInAuth, signInApiEachTest } from '@/testing/test-utils';
import { ledgerCsv, MoneyPage } from './money-page';

const entry = (id: number, account: 'credits' | 'earnings', kind: string, description: string, amount: number, date: string, currency = 'usd') => ({
  id,
  currency,
  transaction_id: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
  kind,
  description,
  account,
  amount_cents: amount,
  created_at: `${date}T10:00:00Z`,
});
const newer = [
  entry(4, 'earnings', 'call_charge', 'Call to demo', 90, '2026-11-20'),
  entry(3, 'credits', 'credit_top_up', 'Credits top-up (card)', 1500, '2026-11-10'),
];
const older = [
  entry(2, 'credits', 'call_charge', 'Call to "other", paid', -100, '2026-10-05'),
  entry(1, 'credits', 'signup_grant', 'Welcome credits', 500, '2026-10-01'),
];

signInApiEachTest();
let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  fetchMock = vi.fn(async (url: string) => {
    if (url === '/api/billing/balance/') return jsonResponse({ credits_cents: 1900, earnings_cents: 90 });
    if (url.startsWith('/api/billing/ledger/')) {
      const before = new URL(url, 'http://x').searchParams.get('before');
      return jsonResponse(before === 'cursor-2' ? { results: older, next_cursor: null } : { results: newer, next_cursor: 'cursor-2' });
    }
    return jsonResponse({ code: 'not_found', message: 'Not found', status: 404 }, 404);
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  vi.restoreAllMocks();
});

const rows = () =>
  within(screen.getByTestId('statement'))
    .getAllByRole('row')
    .map((row) => row.textContent);

describe('Money', () => {
  it('shows both balances and the whole statement, every page of it', async () => {
    renderWithProviders(<MoneyPage />, { route: '/money', auth: signedInAuth() });
    expect((await screen.findByTestId('credits-balance')).textContent).toBe('$19.00');
    expect(screen.getByTestId('earnings-balance').textContent).toBe('$0.90');
    expect(screen.getByRole('link', { name: 'Monthly statements' }).getAttribute('href')).toBe('/money/statements');
    await waitFor(() => expect(rows()).toHaveLength(4));
    expect(rows()[0]).toContain('Call to demo');
    expect(rows()[2]).toContain('−$1.00');
    expect(rows()[3]).toContain('+$5.00');
  });

  it('filters by account, kind and dates, and exports exactly the rows shown as CSV', async () => {
    const saved: { name: string; text: Promise<string> }[] = [];
    vi.stubGlobal(
      'URL',
      Object.assign(URL, {
        createObjectURL: (blob: Blob) => {
          const text = new Promise<string>((resolve) => {
            const reader = new FileReader();
            reader.onload = () => resolve(String(reader.result));
            reader.readAsText(blob);
          });
          saved.push({ name: '', text });
          return 'blob:statement';
        },
        revokeObjectURL: () => {},
      }),
    );
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.at(-1)!.name = this.download;
    });
    renderWithProviders(<MoneyPage />, { route: '/money', auth: signedInAuth() });
    await waitFor(() => expect(rows()).toHaveLength(4));

    fireEvent.change(screen.getByLabelText('Account'), { target: { value: 'credits' } });
    expect(rows()).toHaveLength(3);
    fireEvent.change(screen.getByLabelText('Kind'), { target: { value: 'call_charge' } });
    expect(rows()).toHaveLength(1);
    expect(rows()[0]).toContain('Call to "other", paid');
    fireEvent.change(screen.getByLabelText('Kind'), { target: { value: 'all' } });
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-10-02' } });
    fireEvent.change(screen.getByLabelText('To'), { target: { value: '2026-11-15' } });
    expect(rows()).toHaveLength(2);

    fireEvent.click(screen.getByRole('button', { name: 'Export CSV' }));
    expect(saved).toHaveLength(1);
    expect(saved[0]!.name).toBe('tollbooth-statement.csv');
    const csv = await saved[0]!.text;
    expect(csv).toBe(ledgerCsv([newer[1]!, older[0]!]));
    expect(csv.split('\n')).toEqual([
      'date,account,kind,description,amount_dollars,amount_cents,transaction_id,currency',
      `2026-11-10T10:00:00Z,credits,credit_top_up,Credits top-up (card),15.00,1500,${newer[1]!.transaction_id},usd`,
      `2026-10-05T10:00:00Z,credits,call_charge,"Call to ""other"", paid",-1.00,-100,${older[0]!.transaction_id},usd`,
    ]);

    // Nothing shown: nothing to export.
    fireEvent.change(screen.getByLabelText('Account'), { target: { value: 'earnings' } });
    expect(rows()).toEqual(['No entries']);
    expect((screen.getByRole('button', { name: 'Export CSV' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('without Stripe configured, Add credits shows the not-configured notice', async () => {
    renderWithProviders(<MoneyPage />, { route: '/money', auth: signedInAuth() });
    await screen.findByTestId('credits-balance');
    expect(screen.getByRole('heading', { name: 'Add credits' })).toBeTruthy();
    expect(within(screen.getByRole('region', { name: 'Add credits' })).getByText(/not configured/i)).toBeTruthy();
  });
});

describe('earnings in other currencies', () => {
  const vndEntry = entry(7, 'earnings', 'subscription_payment', 'Subscription to pho (Pro VND)', 90_000, '2026-11-21', 'vnd');
  const overview = {
    stripe_configured: true,
    account: null,
    balances: [
      { currency: 'usd', pending_cents: 0, available_cents: 2500, in_transit_cents: 0, paid_out_cents: 0, minimum_cents: 1000 },
      { currency: 'vnd', pending_cents: 90_000, available_cents: 0, in_transit_cents: 0, paid_out_cents: 0, minimum_cents: 250_000 },
    ],
    hold_days: 7,
    minimum_cents: 1000,
    payouts: [],
  };
  beforeEach(() => {
    fetchMock.mockImplementation(async (url: string) => {
      if (url === '/api/billing/balance/') return jsonResponse({ credits_cents: 1900, earnings_cents: 2500 });
      if (url.startsWith('/api/billing/ledger/')) return jsonResponse({ results: [vndEntry, ...newer], next_cursor: null });
      if (url === '/api/billing/payouts/') return jsonResponse(overview);
      return jsonResponse({ code: 'not_found', message: 'Not found', status: 404 }, 404);
    });
  });

  it('shows dong as dong, apart from dollars: balances, payout figures and statement rows; the CSV never writes them as dollars', async () => {
    renderWithProviders(<MoneyPage />, { route: '/money', auth: signedInAuth() });
    expect((await screen.findByTestId('earnings-balance-vnd')).textContent).toContain('₫90,000');
    expect(screen.getByTestId('earnings-balance').textContent).toBe('$25.00');
    expect(screen.getByTestId('earnings-pending-vnd').textContent).toBe('₫90,000');
    expect(screen.getByTestId('earnings-available').textContent).toBe('$25.00');
    await waitFor(() => expect(rows()).toHaveLength(3));
    expect(rows()[0]).toContain('+₫90,000');
    expect(rows()[0]).not.toContain('$');
    expect(document.body.textContent).not.toMatch(/\$900\.00|\$90,000/);
    expect(ledgerCsv([vndEntry]).split('\n')[1]).toBe(
      `2026-11-21T10:00:00Z,earnings,subscription_payment,Subscription to pho (Pro VND),,90000,${vndEntry.transaction_id},vnd`,
    );
  });
});

describe('Get paid is for creators (issue 61)', () => {
  const overview = {
    stripe_configured: true,
    account: null,
    balances: [{ currency: 'usd', pending_cents: 0, available_cents: 0, in_transit_cents: 0, paid_out_cents: 0, minimum_cents: 1000 }],
    hold_days: 7,
    minimum_cents: 1000,
    payouts: [],
  };
  const serve = (apps: unknown[]) =>
    fetchMock.mockImplementation(async (url: string) => {
      if (url === '/api/billing/balance/') return jsonResponse({ credits_cents: 500, earnings_cents: 0 });
      if (url.startsWith('/api/billing/ledger/')) return jsonResponse({ results: [], next_cursor: null });
      if (url === '/api/billing/payouts/') return jsonResponse(overview);
      if (url === '/api/app/') return jsonResponse(apps);
      return jsonResponse({ code: 'not_found', message: 'Not found', status: 404 }, 404);
    });

  it('a caller (no apps, no earnings, no payout account) sees no Get paid block', async () => {
    serve([]);
    const { queryClient } = renderWithProviders(<MoneyPage />, { route: '/money', auth: signedInAuth() });
    await screen.findByTestId('credits-balance');
    await waitFor(() => expect(fetchMock.mock.calls.some(([url]) => url === '/api/app/')).toBe(true));
    // Every answer in (apps, balance, payouts), and the page drawn from them.
    await waitFor(() => expect(queryClient.isFetching()).toBe(0));
    expect(queryClient.getQueryState(['billing-balance'])?.status).toBe('success');
    expect(screen.queryByRole('heading', { name: 'Get paid' })).toBeNull();
  });

  it('a creator with an app sees it', async () => {
    serve([{ slug: 'alpha' }]);
    renderWithProviders(<MoneyPage />, { route: '/money', auth: signedInAuth() });
    expect(await screen.findByRole('heading', { name: 'Get paid' })).toBeTruthy();
  });
});
