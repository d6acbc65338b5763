// "Get paid" on the Money page: each state the server reports (not connected, onboarding with what
// Stripe still asks for, ready, a payout in transit, a failed one with its reason, a bank payout that
// failed), Withdraw now sending one request, and the return from Stripe asking the server to read
// the account from Stripe.

import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { PayoutsOverview } from '@tollbooth/contract';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, renderWithProviders, signedInAuth, signInApiEachTest } from '@/testing/test-utils';
import { PayoutsPanel } from './payouts-panel';

const balances = (available: number, pending = 0, inTransit = 0, paidOut = 0) => [
  { currency: 'usd', available_cents: available, pending_cents: pending, in_transit_cents: inTransit, paid_out_cents: paidOut, minimum_cents: 1000 },
];
const account = (over: Partial<NonNullable<PayoutsOverview['account']>> = {}) => ({
  stripe_account_id: 'acct_123',
  details_submitted: true,
  payouts_enabled: true,
  transfers_active: true,
  requirements_due: [],
  disabled_reason: null,
  schedule: 'weekly' as const,
  last_bank_payout_failure: null,
  last_bank_payout_failure_at: null,
  ...over,
});
const overview = (over: Partial<PayoutsOverview> = {}): PayoutsOverview => ({
  stripe_configured: true,
  account: null,
  balances: balances(2500, 300),
  hold_days: 7,
  minimum_cents: 1000,
  payouts: [],
  ...over,
});

signInApiEachTest();
let state: PayoutsOverview;
let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
    if (url === '/api/billing/payouts/' && (!init?.method || init.method === 'GET')) return jsonResponse(state);
    if (url === '/api/billing/payouts/refresh/') return jsonResponse(state);
    if (url === '/api/billing/payouts/withdraw/') {
      const payout = {
        id: '00000000-0000-4000-8000-000000000001',
        amount_cents: 2500,
        currency: 'usd',
        status: 'paid',
        origin: 'withdraw',
        stripe_transfer_id: 'tr_1',
        amount_reversed_cents: 0,
        failure_reason: null,
        created_at: '2026-11-27T10:00:00Z',
      } as const;
      state = { ...state, balances: balances(0, 300, 0, 2500), payouts: [payout] };
      return jsonResponse(payout);
    }
    return jsonResponse({ code: 'not_found', message: 'Not found', status: 404 }, 404);
  });
  vi.stubGlobal('fetch', fetchMock);
});

const calls = (path: string) => fetchMock.mock.calls.filter(([url]) => url === path).length;

describe('PayoutsPanel', () => {
  it('not connected: the four figures and Connect Stripe account', async () => {
    state = overview();
    renderWithProviders(<PayoutsPanel />, { route: '/money', auth: signedInAuth() });
    expect((await screen.findByTestId('earnings-available')).textContent).toBe('$25.00');
    expect(screen.getByTestId('earnings-pending').textContent).toBe('$3.00');
    expect(screen.getByRole('button', { name: 'Connect Stripe account' })).toBeTruthy();
  });

  it('onboarding unfinished: what Stripe still asks for, and no withdrawal', async () => {
    state = overview({
      account: account({
        details_submitted: false,
        transfers_active: false,
        payouts_enabled: false,
        requirements_due: ['external_account', 'tos_acceptance.date'],
      }),
    });
    renderWithProviders(<PayoutsPanel />, { route: '/money', auth: signedInAuth() });
    expect((await screen.findByTestId('requirements-due')).textContent).toBe('Stripe still asks for: external account, tos acceptance date.');
    expect(screen.getByTestId('connect-state').textContent).toContain('Onboarding incomplete');
    expect((screen.getByRole('button', { name: 'Withdraw $25.00 now' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('ready: Withdraw now sends one request and shows the payout; below the minimum it is disabled with the reason', async () => {
    state = overview({ account: account() });
    const moneyMoved = vi.fn();
    renderWithProviders(<PayoutsPanel onMoneyMoved={moneyMoved} />, { route: '/money', auth: signedInAuth() });
    const button = await screen.findByRole('button', { name: 'Withdraw $25.00 now' });
    fireEvent.click(button);
    await screen.findByText('$25.00 is on its way to your Stripe account.');
    expect(calls('/api/billing/payouts/withdraw/')).toBe(1);
    // The Money page reads its statement again, so the payout's entries show without a reload.
    expect(moneyMoved).toHaveBeenCalled();
    await waitFor(() => expect(screen.getByTestId('earnings-paid-out').textContent).toBe('$25.00'));
    expect(within(screen.getByTestId('payouts')).getByText('Paid')).toBeTruthy();
    expect(screen.getByText('Withdrawals start at $10.00 available; $3.00 is still held.')).toBeTruthy();
  });

  it('a payout in transit, a refused one with its reason, and a failed bank payout', async () => {
    state = overview({
      account: account({ last_bank_payout_failure: 'The bank account has been closed.', last_bank_payout_failure_at: '2026-11-26T10:00:00Z' }),
      balances: balances(0, 0, 1500),
      payouts: [
        {
          id: '00000000-0000-4000-8000-000000000002',
          amount_cents: 1500,
          currency: 'usd',
          status: 'sending',
          origin: 'schedule',
          stripe_transfer_id: null,
          amount_reversed_cents: 0,
          failure_reason: 'Stripe has not answered yet',
          created_at: '2026-11-27T10:00:00Z',
        },
        {
          id: '00000000-0000-4000-8000-000000000003',
          amount_cents: 1200,
          currency: 'usd',
          status: 'failed',
          origin: 'withdraw',
          stripe_transfer_id: null,
          amount_reversed_cents: 0,
          failure_reason: 'Your destination account needs transfers',
          created_at: '2026-11-26T10:00:00Z',
        },
      ],
    });
    renderWithProviders(<PayoutsPanel />, { route: '/money', auth: signedInAuth() });
    expect((await screen.findByTestId('earnings-in-transit')).textContent).toBe('$15.00');
    const rows = within(screen.getByTestId('payouts'))
      .getAllByRole('row')
      .map((row) => row.textContent);
    expect(rows[0]).toContain('In transit');
    expect(rows[1]).toContain('Your destination account needs transfers');
    expect(screen.getByRole('alert').textContent).toContain('The bank account has been closed.');
    expect((screen.getByRole('button', { name: 'Withdraw $0.00 now' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('back from Stripe: asks the server to read the account from Stripe, once', async () => {
    state = overview({ account: account() });
    renderWithProviders(<PayoutsPanel />, { route: '/money?connect=return', auth: signedInAuth() });
    await screen.findByTestId('connect-state');
    await waitFor(() => expect(calls('/api/billing/payouts/refresh/')).toBe(1));
  });
});
