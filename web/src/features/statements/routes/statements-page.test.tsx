// Statements: the month picker (current month by default, earlier months with activity, keyboard
// usable), a caller's and a creator's statement per currency in its own minor unit, the receipt
// links, the empty and error states, and Download CSV reading the server's file.
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { CallerStatementCurrency, CreatorStatementCurrency } from '@tollbooth/contract';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatMinor } from '@/lib/format';
import { jsonResponse, renderWithProviders, signedInAuth, signInApiEachTest } from '@/testing/test-utils';
import { monthName } from '../lib/statement-dates';
import { StatementsPage } from './statements-page';

const caller = (over: Partial<CallerStatementCurrency> = {}): CallerStatementCurrency => ({
  currency: 'usd',
  opening_balance_cents: 1000,
  closing_balance_cents: 2120,
  top_ups_cents: 2000,
  refunds_cents: -500,
  disputes_cents: 0,
  spend_cents: 380,
  other_cents: 0,
  subscriptions_cents: 900,
  subscription_refunds_cents: 0,
  top_ups: [{ date: '2026-11-03T10:00:00Z', amount_cents: 2000, payment_intent_id: 'pi_1', receipt_url: 'https://pay.stripe.com/receipts/x' }],
  adjustments: [
    { date: '2026-11-04T10:00:00Z', kind: 'refund', description: 'Top-up refunded (charge ch_1)', amount_cents: -500, reference: 'refund:ch_1:500' },
    { date: '2026-11-06T10:00:00Z', kind: 'subscription_refund', description: 'Pro on alpha', amount_cents: 300, reference: 'refund:ch_2:300' },
    { date: '2026-11-07T10:00:00Z', kind: 'subscription_dispute', description: 'Max on alpha', amount_cents: 600, reference: 'dispute:dp_1' },
    { date: '2026-11-08T10:00:00Z', kind: 'subscription_dispute_won', description: 'Max on alpha', amount_cents: -600, reference: 'dispute-won:dp_1' },
  ],
  spend_by_app: [
    { app_slug: 'alpha', app_name: 'Alpha', calls: 3, amount_cents: 300 },
    { app_slug: 'beta', app_name: 'Beta', calls: 2, amount_cents: 80 },
  ],
  subscriptions: [
    {
      date: '2026-11-05T10:00:00Z',
      app_slug: 'alpha',
      app_name: 'Alpha',
      plan: 'Pro',
      amount_cents: 900,
      period_start: '2026-11-05T10:00:00Z',
      period_end: '2026-12-05T10:00:00Z',
      invoice_id: 'in_1',
    },
  ],
  other: [],
  ...over,
});
const creator = (over: Partial<CreatorStatementCurrency> = {}): CreatorStatementCurrency => ({
  currency: 'vnd',
  opening_balance_cents: 0,
  closing_balance_cents: 90000,
  gross_calls_cents: 0,
  gross_subscriptions_cents: 100000,
  gross_cents: 100000,
  fee_cents: 10000,
  model_cost_cents: 0,
  model_cost_micros: 0,
  model_cost_from_credits_cents: 0,
  margin_micros: 0,
  net_cents: 90000,
  refunds_seen_cents: 0,
  payouts_cents: 0,
  other_cents: 0,
  calls: [],
  subscriptions: [
    {
      date: '2026-11-05T10:00:00Z',
      app_slug: 'alpha',
      app_name: 'Alpha',
      plan: 'Pro',
      gross_cents: 100000,
      fee_cents: 10000,
      net_cents: 90000,
      invoice_id: 'in_2',
    },
  ],
  refunds_seen: [
    { date: '2026-11-06T10:00:00Z', app_slug: 'alpha', app_name: 'Alpha', plan: 'Pro', amount_cents: 30000, reference: 'refund:ch_3:30000' },
    { date: '2026-11-07T10:00:00Z', app_slug: 'alpha', app_name: 'Alpha', plan: 'Max', amount_cents: 50000, reference: 'dispute:dp_2' },
  ],
  payouts: [],
  other: [],
  ...over,
});

signInApiEachTest();
let fetchMock: ReturnType<typeof vi.fn>;
let failStatement = false;
/** What GET /api/app/ answers: a creator has apps, a caller none. */
let ownApps: unknown[] = [];
beforeEach(() => {
  failStatement = false;
  ownApps = [];
  fetchMock = vi.fn(async (input: string) => {
    const url = new URL(input, 'http://x');
    if (url.pathname === '/api/app/') return jsonResponse(ownApps);
    if (url.pathname === '/api/billing/statements/') return jsonResponse({ current: '2026-11', months: ['2026-11', '2026-09'] });
    const match = /^\/api\/billing\/statements\/(\d{4}-\d{2})\/(csv\/)?$/.exec(url.pathname);
    if (match) {
      const role = url.searchParams.get('role') ?? 'caller';
      if (match[2]) {
        return new Response('month,role\r\n2026-11,caller\r\n', {
          headers: { 'content-type': 'text/csv', 'content-disposition': `attachment; filename="statement-${match[1]}-${role}.csv"` },
        });
      }
      if (failStatement) return jsonResponse({ code: 'internal_error', message: 'Database unavailable', status: 500 }, 500);
      const base = { month: match[1], role, from: `${match[1]}-01T00:00:00.000Z`, to: '2026-12-01T00:00:00.000Z' };
      if (match[1] === '2026-09') return jsonResponse({ ...base, caller: [caller({ top_ups: [], adjustments: [], spend_by_app: [], subscriptions: [] })] });
      return jsonResponse(role === 'creator' ? { ...base, creator: [creator()] } : { ...base, caller: [caller()] });
    }
    return jsonResponse({ code: 'not_found', message: 'Not found', status: 404 }, 404);
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe('money formats', () => {
  it('writes each currency in its own minor unit, and names UTC months', () => {
    expect(formatMinor(123456, 'usd')).toBe('$1,234.56');
    expect(formatMinor(100000, 'vnd')).toBe('₫100,000');
    expect(formatMinor(500, 'jpy')).toBe('¥500');
    expect(formatMinor(-0, 'usd')).toBe('$0.00');
    expect(monthName('2026-01')).toBe('January 2026');
  });
});

describe('Statements', () => {
  it('opens on the earnings side for a creator (issue 61), with the model cost to the micro-dollar and what the ledger posted', async () => {
    ownApps = [{ slug: 'alpha' }];
    const usd = creator({
      currency: 'usd',
      gross_calls_cents: 300,
      gross_subscriptions_cents: 0,
      gross_cents: 300,
      fee_cents: 30,
      model_cost_cents: 0,
      model_cost_micros: 3060,
      margin_micros: 2_696_940,
      net_cents: 270,
      subscriptions: [],
      calls: [
        {
          app_slug: 'alpha',
          app_name: 'Alpha',
          calls: 3,
          gross_cents: 300,
          fee_cents: 30,
          model_cost_cents: 0,
          model_cost_micros: 3060,
          model_cost_from_credits_cents: 0,
          margin_micros: 2_696_940,
          net_cents: 270,
        },
      ],
    });
    fetchMock.mockImplementation(async (input: string) => {
      const url = new URL(input, 'http://x');
      if (url.pathname === '/api/app/') return jsonResponse(ownApps);
      if (url.pathname === '/api/billing/statements/') return jsonResponse({ current: '2026-11', months: ['2026-11'] });
      const role = url.searchParams.get('role');
      return jsonResponse({ month: '2026-11', role, from: '2026-11-01T00:00:00.000Z', to: '2026-12-01T00:00:00.000Z', creator: [usd] });
    });
    renderWithProviders(<StatementsPage />, { route: '/money/statements', auth: signedInAuth() });
    const block = await screen.findByTestId('creator-usd');
    expect(screen.getByRole('button', { name: 'Your earnings' }).getAttribute('aria-pressed')).toBe('true');
    expect(fetchMock.mock.calls.some(([url]) => String(url) === '/api/billing/statements/2026-11/?role=creator')).toBe(true);
    expect(within(block).getByTestId('model-cost-total').textContent).toBe('−$0.00306');
    expect(within(block).getByText('$0.00 posted in whole cents as costs add up')).toBeTruthy();
    expect(within(block).getByTestId('margin-total').textContent).toBe('$2.69694');
    expect(within(block).getByRole('row', { name: /Alpha 3 \$3\.00 -\$0\.30 −\$0\.00306 \$2\.70/ })).toBeTruthy();
  });

  it('opens on the current month as a caller: figures, the receipt link, spend per app and the subscription', async () => {
    renderWithProviders(<StatementsPage />, { route: '/money/statements', auth: signedInAuth() });
    const block = await screen.findByTestId('caller-usd');
    expect(within(block).getByTestId('opening-balance').textContent).toBe('$10.00');
    expect(within(block).getByTestId('closing-balance').textContent).toBe('$21.20');
    expect(within(block).getByTestId('spend-total').textContent).toBe('$3.80');
    const receipt = within(block).getByRole('link', { name: /Stripe receipt/ });
    expect(receipt.getAttribute('href')).toBe('https://pay.stripe.com/receipts/x');
    expect(receipt.getAttribute('rel')).toContain('noopener');
    expect(within(block).getByText('Beta').closest('tr')?.textContent).toBe('Beta2$0.80');
    expect(within(block).getByText('Pro').closest('tr')?.textContent).toContain('$9.00');
    // A refunded subscription payment went back to the card: listed with the subscriptions, not with the credits' refunds.
    const subscriptions = within(block).getByRole('heading', { name: 'Subscriptions' }).parentElement!;
    expect(
      within(subscriptions)
        .getByText(/Refunded to your card: Pro on alpha/)
        .closest('tr')?.textContent,
    ).toContain('$3.00');
    // So did a disputed one, and the dispute the app won.
    expect(
      within(subscriptions)
        .getByText(/Disputed with your card issuer: Max on alpha/)
        .closest('tr')?.textContent,
    ).toContain('$6.00');
    expect(
      within(subscriptions)
        .getByText(/favour, the payment stands: Max on alpha/)
        .closest('tr')?.textContent,
    ).toContain('-$6.00');
    const refunds = within(block).getByRole('heading', { name: 'Refunds and disputes' }).parentElement!;
    expect(within(refunds).getAllByRole('row')).toHaveLength(2);
    const picker = screen.getByLabelText('Month') as HTMLSelectElement;
    expect(picker.value).toBe('2026-11');
    expect([...picker.options].map((o) => o.textContent)).toEqual(['November 2026', 'September 2026']);
    expect(fetchMock.mock.calls.some(([url]) => String(url) === '/api/billing/statements/2026-11/?role=caller')).toBe(true);
  });

  it("a creator's statement in dong, with no decimals and no dollar sign", async () => {
    renderWithProviders(<StatementsPage />, { route: '/money/statements', auth: signedInAuth() });
    await screen.findByTestId('caller-usd');
    fireEvent.click(screen.getByRole('button', { name: 'Your earnings' }));
    const block = await screen.findByTestId('creator-vnd');
    expect(screen.getByRole('button', { name: 'Your earnings' }).getAttribute('aria-pressed')).toBe('true');
    expect(within(block).getByTestId('gross-total').textContent).toBe('₫100,000');
    expect(within(block).getByTestId('fee-total').textContent).toBe('-₫10,000');
    expect(within(block).getByTestId('net-total').textContent).toBe('₫90,000');
    expect(block.textContent).not.toContain('$');
    // Refunds and disputes of subscription payments, seen: the dispute says so.
    const seen = within(block).getByRole('heading', { name: 'Refunds seen' }).parentElement!;
    expect(within(seen).getByText('Pro').closest('tr')?.textContent).toBe('Nov 6, 2026AlphaPro₫30,000');
    expect(within(seen).getByText(/Max/).closest('tr')?.textContent).toContain('Max (disputed)');
  });

  it('a month without activity says so; choosing it with the keyboard reads that month', async () => {
    renderWithProviders(<StatementsPage />, { route: '/money/statements', auth: signedInAuth() });
    await screen.findByTestId('caller-usd');
    const picker = screen.getByLabelText('Month');
    picker.focus();
    fireEvent.change(picker, { target: { value: '2026-09' } });
    expect((await screen.findByTestId('statement-empty')).textContent).toBe('No activity in September 2026');
  });

  it('shows an error when the statement cannot be read', async () => {
    failStatement = true;
    renderWithProviders(<StatementsPage />, { route: '/money/statements?month=2026-11', auth: signedInAuth() });
    expect(await screen.findByText(/Failed to load the statement: Database unavailable/)).toBeTruthy();
  });

  it('Download CSV saves the server’s file under its name', async () => {
    const created: string[] = [];
    const originalCreate = URL.createObjectURL;
    URL.createObjectURL = vi.fn(() => 'blob:x');
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      created.push(this.download);
    });
    try {
      renderWithProviders(<StatementsPage />, { route: '/money/statements?role=creator', auth: signedInAuth() });
      await screen.findByTestId('creator-vnd');
      fireEvent.click(screen.getByRole('button', { name: 'Download CSV' }));
      await waitFor(() => expect(created).toEqual(['statement-2026-11-creator.csv']));
      expect(fetchMock.mock.calls.some(([url]) => String(url) === '/api/billing/statements/2026-11/csv/?role=creator')).toBe(true);
      expect(click).toHaveBeenCalledTimes(1);
    } finally {
      URL.createObjectURL = originalCreate;
    }
  });
});
