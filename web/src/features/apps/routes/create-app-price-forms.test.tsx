// The price form chooser of the create form (issue 60): each form sends its card in micro-dollars,
// bad amounts show on their field before any call, and a 400 naming a price field shows on it.
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { describe, expect, it } from 'vitest';
import { COST_PLUS_WORKFLOW_REASON, WORKFLOW_MAXIMUM_MISSING, WORKFLOW_MAXIMUM_REASON } from '@/components/pricing/price-form.utils';
import { fakeAppsServer, withTestAccessToken } from '@/testing/fake-apps-server';
import { jsonResponse, renderWithProviders, signedInAuth } from '@/testing/test-utils';
import { CreateAppPage } from './create-app-page';

withTestAccessToken();

function renderCreate(route = '/applications/create') {
  return renderWithProviders(
    <Routes>
      <Route path="/applications/create" element={<CreateAppPage />} />
      <Route path="/applications/:slug" element={<p>Created</p>} />
    </Routes>,
    { route, auth: signedInAuth() },
  );
}

const input = (label: string) => screen.getByLabelText(label) as HTMLInputElement;
const type = (label: string, value: string) => fireEvent.change(input(label), { target: { value } });
const submit = () => fireEvent.click(screen.getByRole('button', { name: 'Create Application' }));
const errorOf = (label: string) => document.getElementById(`${input(label).id}-error`)?.textContent;

describe('the price form chooser', () => {
  it('sends a sub-cent price per call as pricing, in micro-dollars', async () => {
    const server = fakeAppsServer();
    renderCreate();
    type('Name', 'Tiny');
    type('Price per API call (USD)', '0.005');
    expect(screen.getByTestId('price-display').textContent).toBe('$0.005 per call');
    submit();
    await screen.findByText('Created');
    expect(server.bodyOf('POST /api/app/')).toMatchObject({ name: 'Tiny', pricing: { form: 'per_call', call_micros: 5_000 } });
    expect(server.bodyOf('POST /api/app/')).not.toHaveProperty('price_cents');
  });

  it('sends a per-token card with its cached rate, fee, minimum and most', async () => {
    const server = fakeAppsServer();
    renderCreate();
    type('Name', 'Tokens');
    fireEvent.click(screen.getByLabelText('Per token'));
    expect(screen.queryByLabelText('Price per API call (USD)')).toBeNull();
    type('Input per million tokens (USD)', '2');
    type('Output per million tokens (USD)', '8.5');
    type('Cached input per million (USD)', '0.5');
    type('Fee per call (USD, optional)', '0.001');
    type('Minimum per call (USD, optional)', '0.002');
    type('Most per call (USD, optional)', '0.25');
    expect(screen.getByTestId('price-form-preview').textContent).toContain('$2.00 per million input tokens');
    submit();
    await screen.findByText('Created');
    expect(server.bodyOf('POST /api/app/')).toMatchObject({
      pricing: {
        form: 'per_token',
        input_per_mtok_micros: 2_000_000,
        output_per_mtok_micros: 8_500_000,
        cached_input_per_mtok_micros: 500_000,
        call_micros: 1_000,
        minimum_micros: 2_000,
        max_call_micros: 250_000,
      },
    });
  });

  it('sends a cost-plus card with its markup in basis points', async () => {
    const server = fakeAppsServer();
    renderCreate();
    type('Name', 'Plus');
    fireEvent.click(screen.getByLabelText('Cost plus'));
    expect(input('Markup (× model cost)').value).toBe('1.25');
    type('Markup (× model cost)', '1.5');
    type('Fee per call (USD, optional)', '0.01');
    submit();
    await screen.findByText('Created');
    expect(server.bodyOf('POST /api/app/').pricing).toEqual({ form: 'cost_plus', markup_bps: 15_000, call_micros: 10_000 });
  });

  it('shows a bad amount on its field and calls nothing', () => {
    const server = fakeAppsServer();
    renderCreate();
    type('Name', 'Bad');
    fireEvent.click(screen.getByLabelText('Per token'));
    type('Input per million tokens (USD)', 'abc');
    type('Output per million tokens (USD)', '0.0000001');
    submit();
    expect(errorOf('Input per million tokens (USD)')).toBe('Enter an amount in dollars, such as 0.05.');
    expect(errorOf('Output per million tokens (USD)')).toBe('Use dollars with at most 6 decimals (a millionth of a dollar).');
    expect(document.activeElement).toBe(input('Input per million tokens (USD)'));
    type('Input per million tokens (USD)', '0');
    type('Output per million tokens (USD)', '0');
    submit();
    expect(errorOf('Input per million tokens (USD)')).toBe('A per-token price needs an input or an output rate above $0.');
    expect(server.calls()).toEqual([]);
  });

  it('keeps cost plus from a workflow and asks a per-token workflow for its most per call, saying why', async () => {
    const server = fakeAppsServer();
    renderCreate('/applications/create?type=workflow');
    type('Name', 'Flow');
    type('Provider App ID', 'app-1');
    type('Provider API Key', 'key-1');
    expect(input('Cost plus').disabled).toBe(true);
    expect(screen.getByTestId('cost-plus-reason').textContent).toBe(COST_PLUS_WORKFLOW_REASON);
    fireEvent.click(screen.getByLabelText('Per token'));
    type('Input per million tokens (USD)', '1');
    type('Output per million tokens (USD)', '2');
    submit();
    expect(errorOf('Most per call (USD)')).toBe(WORKFLOW_MAXIMUM_MISSING);
    expect(document.getElementById(`${input('Most per call (USD)').id}-hint`)?.textContent).toBe(WORKFLOW_MAXIMUM_REASON);
    expect(server.calls()).toEqual([]);
    type('Most per call (USD)', '0.10');
    submit();
    await screen.findByText('Created');
    expect(server.bodyOf('POST /api/app/').pricing).toEqual({
      form: 'per_token',
      input_per_mtok_micros: 1_000_000,
      output_per_mtok_micros: 2_000_000,
      max_call_micros: 100_000,
    });
  });

  it('shows the server’s 400 on the price field it names', async () => {
    fakeAppsServer({
      override: (url, init) =>
        url.pathname === '/api/app/' && init?.method === 'POST'
          ? jsonResponse(
              {
                code: 'invalid_param',
                message: 'pricing.input_per_mtok_micros: is above the most a price may be ($1000; PRICE_LIMIT_DOLLARS)',
                status: 400,
                params: 'pricing.input_per_mtok_micros',
              },
              400,
            )
          : undefined,
    });
    renderCreate();
    type('Name', 'Dear');
    fireEvent.click(screen.getByLabelText('Per token'));
    type('Input per million tokens (USD)', '5000');
    type('Output per million tokens (USD)', '1');
    submit();
    expect((await screen.findByRole('alert')).textContent).toContain('pricing.input_per_mtok_micros: is above the most');
    await waitFor(() => expect(errorOf('Input per million tokens (USD)')).toBe('Is above the most a price may be ($1000; PRICE_LIMIT_DOLLARS)'));
    expect(input('Input per million tokens (USD)').getAttribute('aria-invalid')).toBe('true');
  });
});
