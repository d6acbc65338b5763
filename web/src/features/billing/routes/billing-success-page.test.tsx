// /billing/success: Stripe's return (3-D Secure, redirecting methods) read through Stripe.js, the
// real outcome shown, a card saved or a top-up credited only when Stripe says it succeeded, and a
// link back to the app's billing page.
import { screen } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { RuntimeConfigContext } from '@/lib/runtime-config';
import { jsonResponse, renderWithProviders, signedInAuth, signInApiEachTest, testRuntimeConfig } from '@/testing/test-utils';
import { BillingSuccessPage } from './billing-success-page';

const stripe = { retrievePaymentIntent: vi.fn(), retrieveSetupIntent: vi.fn() };
vi.mock('../lib/stripe', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../lib/stripe')>()),
  stripePromise: vi.fn(async () => stripe),
}));

signInApiEachTest();
let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  stripe.retrievePaymentIntent.mockReset();
  stripe.retrieveSetupIntent.mockReset();
  fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
    if (url === '/api/billing/top-ups/confirm/') return jsonResponse({ status: 'succeeded', credited: true, credits_cents: 1500 });
    if (url === '/api/app/demo/payment-methods/' && init?.method === 'POST')
      return jsonResponse({ id: 'm1', card_brand: 'visa', card_last4: '3155', card_exp_month: 12, card_exp_year: 2030, is_default: true }, 201);
    return jsonResponse({ code: 'not_found', message: 'Not found', status: 404 }, 404);
  });
  vi.stubGlobal('fetch', fetchMock);
});

const renderAt = (query: string, publishableKey: string | null = 'pk_test_123') =>
  renderWithProviders(
    <RuntimeConfigContext.Provider value={{ ...testRuntimeConfig, stripe_publishable_key: publishableKey }}>
      <Routes>
        <Route path="/billing/success" element={<BillingSuccessPage />} />
      </Routes>
    </RuntimeConfigContext.Provider>,
    { route: `/billing/success?${query}`, auth: signedInAuth() },
  );

const posts = () =>
  fetchMock.mock.calls
    .filter(([, init]) => (init as RequestInit | undefined)?.method === 'POST')
    .map(([url, init]) => [url, JSON.parse(String((init as RequestInit).body))]);

describe('/billing/success', () => {
  it('a subscription payment that succeeded: Payment Complete, and a link back to the app’s billing page', async () => {
    stripe.retrievePaymentIntent.mockResolvedValue({ paymentIntent: { id: 'pi_1', status: 'succeeded' } });
    renderAt('app=demo&payment_intent=pi_1&payment_intent_client_secret=pi_1_secret_x&redirect_status=succeeded');
    expect(await screen.findByText('Your payment succeeded. Your subscription is active.')).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Payment Complete' })).toBeTruthy();
    expect(stripe.retrievePaymentIntent).toHaveBeenCalledWith('pi_1_secret_x');
    expect(screen.getByRole('link', { name: 'Back to billing' }).getAttribute('href')).toBe('/applications/demo/billing');
    expect(posts()).toEqual([]);
  });

  it('a top-up that succeeded is confirmed with the server (which credits it once) and links back to Money', async () => {
    stripe.retrievePaymentIntent.mockResolvedValue({ paymentIntent: { id: 'pi_2', status: 'succeeded' } });
    renderAt('kind=top-up&payment_intent=pi_2&payment_intent_client_secret=pi_2_secret_y');
    expect(await screen.findByText('Your credits were added.')).toBeTruthy();
    expect(posts()).toEqual([['/api/billing/top-ups/confirm/', { payment_intent_id: 'pi_2' }]]);
    expect(screen.getByRole('link', { name: 'Back to Money' }).getAttribute('href')).toBe('/money');
  });

  it('a card set up after 3-D Secure is saved from its SetupIntent', async () => {
    stripe.retrieveSetupIntent.mockResolvedValue({ setupIntent: { id: 'seti_3', status: 'succeeded' } });
    renderAt('app=demo&setup_intent=seti_3&setup_intent_client_secret=seti_3_secret_z');
    expect(await screen.findByText('Your payment method was saved.')).toBeTruthy();
    expect(posts()).toEqual([['/api/app/demo/payment-methods/', { setup_intent_id: 'seti_3' }]]);
  });

  it('a failed 3-D Secure challenge: Payment not completed with Stripe’s reason, nothing credited or saved', async () => {
    stripe.retrievePaymentIntent.mockResolvedValue({
      error: { code: 'payment_intent_authentication_failure', message: 'We are unable to authenticate your payment method.' },
    });
    const first = renderAt('kind=top-up&payment_intent=pi_4&payment_intent_client_secret=pi_4_secret_w&redirect_status=failed');
    expect(await screen.findByText('We are unable to authenticate your payment method.')).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Payment not completed' })).toBeTruthy();
    first.unmount();

    stripe.retrieveSetupIntent.mockResolvedValue({ setupIntent: { id: 'seti_5', status: 'requires_payment_method' } });
    const second = renderAt('app=demo&setup_intent=seti_5&setup_intent_client_secret=seti_5_secret_v');
    expect(await screen.findByText('Failed to create payment method')).toBeTruthy();
    second.unmount();

    stripe.retrievePaymentIntent.mockResolvedValue({ paymentIntent: { id: 'pi_6', status: 'requires_action' } });
    renderAt('app=demo&payment_intent=pi_6&payment_intent_client_secret=pi_6_secret_u');
    expect(await screen.findByText('Payment was not completed successfully')).toBeTruthy();
    expect(posts()).toEqual([]);
  });

  it('without Stripe configured it says so', async () => {
    renderAt('app=demo&payment_intent=pi_7&payment_intent_client_secret=pi_7_secret_t', null);
    expect(await screen.findByText('Stripe is not configured. Payment functionality is not available.')).toBeTruthy();
  });
});
