import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, renderWithProviders, signedInAuth, signInApiEachTest } from '@/testing/test-utils';
import { BillingPage } from './billing-page';
import { ledgerCsv } from './money-page';

const plans = [
  {
    id: '00000000-0000-4000-8000-000000000001',
    name: 'Starter',
    description: 'For trying',
    price: 0,
    price_cents: 0,
    currency: 'usd',
    features: { Calls: '100' },
    included_calls: 100,
    is_active: true,
  },
  {
    id: '00000000-0000-4000-8000-000000000002',
    name: 'Pro Monthly',
    description: 'For teams',
    price: 9.99,
    price_cents: 999,
    currency: 'usd',
    features: {},
    included_calls: 0,
    is_active: true,
  },
  {
    id: '00000000-0000-4000-8000-000000000003',
    name: 'Legacy',
    description: 'Old',
    price: 5,
    price_cents: 500,
    currency: 'eur',
    features: {},
    included_calls: 0,
    is_active: false,
  },
];
const subs = [
  {
    id: 's1',
    package_id: plans[0]!.id,
    package_name: 'Starter',
    status: 'active',
    cancel_at_period_end: false,
    current_period_end: '2030-01-01T00:00:00Z',
    days_remaining: 12,
    price: 0,
    currency: 'usd',
    included_calls: 100,
    included_calls_used: 7,
  },
  {
    id: 's2',
    package_id: plans[1]!.id,
    package_name: 'Pro Monthly',
    status: 'active',
    cancel_at_period_end: true,
    current_period_end: '2030-01-01T00:00:00Z',
    days_remaining: 3,
    price: 9.99,
    currency: 'usd',
    included_calls: 0,
    included_calls_used: 0,
  },
  {
    id: 's3',
    package_id: plans[2]!.id,
    package_name: 'Legacy',
    status: 'past_due',
    cancel_at_period_end: false,
    current_period_end: '2030-01-01T00:00:00Z',
    days_remaining: 1,
    price: 5,
    currency: 'eur',
    included_calls: 0,
    included_calls_used: 0,
  },
];
const methods = [{ id: 'm1', card_brand: 'visa', card_last4: '4242', card_exp_month: 4, card_exp_year: 2031, is_default: true }];

signInApiEachTest();
beforeEach(() => {});

function serve(overrides: Record<string, () => Response> = {}) {
  const fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
    const key = `${init?.method ?? 'GET'} ${url}`;
    if (overrides[key]) return overrides[key]();
    if (url === '/api/app/demo/') return jsonResponse({ slug: 'demo', is_owner: false });
    if (url === '/api/app/demo/packages/') return jsonResponse(plans);
    if (url === '/api/app/demo/subscriptions/') return jsonResponse(subs);
    if (url === '/api/app/demo/payment-methods/') return jsonResponse(methods);
    return jsonResponse({ code: 'not_found', message: 'Not found', status: 404 }, 404);
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

const renderPage = () =>
  renderWithProviders(
    <Routes>
      <Route path="/applications/:appSlug/billing" element={<BillingPage />} />
    </Routes>,
    { route: '/applications/demo/billing', auth: signedInAuth() },
  );

describe('Billing & Subscriptions', () => {
  it('shows the spec: badges, Canceling, days remaining, cancel only when allowed, Popular, Not Available, card lines, the not-configured notice', async () => {
    serve();
    renderPage();
    expect(await screen.findByRole('heading', { name: 'Billing & Subscriptions' })).toBeTruthy();
    const items = await screen.findAllByTestId('subscription');
    expect(items).toHaveLength(3);
    expect(within(items[0]!).getByText('active')).toBeTruthy();
    expect(within(items[0]!).getByRole('button', { name: 'Cancel' })).toBeTruthy();
    expect(within(items[0]!).getByText(/12 days remaining/)).toBeTruthy();
    expect(within(items[1]!).getByText('Canceling')).toBeTruthy();
    expect(within(items[1]!).queryByRole('button', { name: 'Cancel' })).toBeNull();
    expect(within(items[2]!).getByText('past_due').className).toContain('yellow');
    expect(within(items[2]!).queryByRole('button', { name: 'Cancel' })).toBeNull();

    const cards = screen.getAllByTestId('plan');
    expect(within(cards[1]!).getByText('Popular')).toBeTruthy();
    expect(within(cards[0]!).queryByText('Popular')).toBeNull();
    expect(within(cards[0]!).getByText('Calls: 100')).toBeTruthy();
    expect((within(cards[2]!).getByRole('button', { name: 'Not Available' }) as HTMLButtonElement).disabled).toBe(true);
    expect(within(cards[2]!).getByText('€5.00')).toBeTruthy();

    const method = screen.getByTestId('payment-method');
    expect(method.textContent).toContain('VISA');
    expect(method.textContent).toContain('4242');
    expect(method.textContent).toContain('Expires 04/2031');
    expect(method.textContent).toContain('Default');
    expect(screen.getByRole('note').textContent).toContain('not configured');
  });

  it('without Stripe shows paid plans as unavailable with the reason, keeps free plans, and warns the owner making a paid plan (issue 25 item 4)', async () => {
    serve({ 'GET /api/app/demo/': () => jsonResponse({ slug: 'demo', is_owner: true }) });
    renderPage();
    const cards = await screen.findAllByTestId('plan');
    // The free plan is still offered.
    expect((within(cards[0]!).getByRole('button', { name: 'Subscribe' }) as HTMLButtonElement).disabled).toBe(false);
    // The paid plan cannot be bought here: no Subscribe, no "Processing..." dead button, the reason shown.
    expect(within(cards[1]!).queryByRole('button', { name: 'Subscribe' })).toBeNull();
    expect((within(cards[1]!).getByRole('button', { name: 'Not Available' }) as HTMLButtonElement).disabled).toBe(true);
    expect(within(cards[1]!).getByTestId('plan-unavailable-reason').textContent).toContain('Stripe');
    fireEvent.click(within(cards[1]!).getByRole('button', { name: 'Not Available' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.queryByText('Processing...')).toBeNull();

    // The owner's plan form says so as soon as the price is above 0.
    fireEvent.click(await screen.findByRole('button', { name: 'New plan' }));
    const form = screen.getByRole('form', { name: 'Plan editor' });
    expect(within(form).queryByTestId('paid-plan-without-stripe')).toBeNull();
    fireEvent.change(within(form).getByLabelText('Price (per month)'), { target: { value: '9.99' } });
    expect(within(form).getByTestId('paid-plan-without-stripe').textContent).toContain('not configured');
  });

  it('makes a saved card the default from the list (issue 25 item 10)', async () => {
    const cards = [
      { id: 'm1', card_brand: 'visa', card_last4: '4242', card_exp_month: 4, card_exp_year: 2031, is_default: true },
      { id: 'm2', card_brand: 'mastercard', card_last4: '4444', card_exp_month: 5, card_exp_year: 2032, is_default: false },
    ];
    const fetchMock = serve({
      'GET /api/app/demo/payment-methods/': () => jsonResponse(cards),
      'PATCH /api/app/demo/payment-methods/m2/': () => {
        cards[0]!.is_default = false;
        cards[1]!.is_default = true;
        return jsonResponse(cards[1]);
      },
    });
    renderPage();
    const listed = await screen.findAllByTestId('payment-method');
    // The default card has no button; the other one does.
    expect(within(listed[0]!).queryByRole('button', { name: 'Make default' })).toBeNull();
    fireEvent.click(within(listed[1]!).getByRole('button', { name: 'Make default' }));
    await waitFor(() => expect(within(screen.getAllByTestId('payment-method')[1]!).getByText('Default')).toBeTruthy());
    const patch = fetchMock.mock.calls.find(([, init]) => init?.method === 'PATCH');
    expect(patch?.[0]).toBe('/api/app/demo/payment-methods/m2/');
    expect(JSON.parse(String(patch?.[1]?.body))).toEqual({ is_default: true });
    expect(within(screen.getAllByTestId('payment-method')[0]!).getByRole('button', { name: 'Make default' })).toBeTruthy();
  });

  it('a load error shows the red Error box with the spec text', async () => {
    serve({ 'GET /api/app/demo/packages/': () => jsonResponse({ code: 'internal_error', message: 'x', status: 500 }, 500) });
    renderPage();
    expect((await screen.findByRole('alert')).textContent).toContain('Failed to load billing data');
  });

  it('Remove reads Removing... while busy and reloads the list; a failure shows the spec text', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    let answer!: (response: Response) => void;
    const fetchMock = serve();
    const original = fetchMock.getMockImplementation()!;
    fetchMock.mockImplementation(async (url: string, init?: RequestInit) => {
      if (init?.method === 'DELETE') return new Promise<Response>((resolve) => (answer = resolve));
      return original(url, init);
    });
    renderPage();
    fireEvent.click(await screen.findByRole('button', { name: 'Remove' }));
    expect(await screen.findByRole('button', { name: 'Removing...' })).toBeTruthy();
    answer(jsonResponse({ code: 'provider_error', message: 'no', status: 502 }, 502));
    expect((await screen.findByRole('alert')).textContent).toContain('Failed to delete payment method');
    await waitFor(() => expect(fetchMock.mock.calls.filter(([url]) => url === '/api/app/demo/payment-methods/').length).toBeGreaterThan(1));
  });
});

describe('the statement CSV', () => {
  it('has a header, dollars and cents, and quotes what needs it', () => {
    const csv = ledgerCsv([
      {
        id: 1,
        transaction_id: 't',
        kind: 'call_charge',
        description: 'Call to "a, b"',
        account: 'credits',
        currency: 'usd',
        amount_cents: -125,
        created_at: '2030-01-01T00:00:00.000Z',
      },
    ]);
    expect(csv.split('\n')).toEqual([
      'date,account,kind,description,amount_dollars,amount_cents,transaction_id,currency',
      '2030-01-01T00:00:00.000Z,credits,call_charge,"Call to ""a, b""",-1.25,-125,t,usd',
    ]);
  });
});
