import { fireEvent, screen, within } from '@testing-library/react';
import type { CatalogAppDetail } from '@tollbooth/contract';
import { Route, Routes } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { makeCatalogAppDetail } from '@/testing/fake-catalog';
import { jsonResponse, renderWithProviders, signedInAuth } from '@/testing/test-utils';
import { ExploreAppPage } from './explore-app-page';

function fakePublicPage(page: CatalogAppDetail | null) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: string) => {
      const url = new URL(input, 'http://localhost');
      if (page && url.pathname === `/api/catalog/${page.slug}`) return jsonResponse(page);
      return jsonResponse({ code: 'not_found', message: 'Application not found', status: 404 }, 404);
    }),
  );
}

const renderPage = (slug: string) =>
  renderWithProviders(
    <Routes>
      <Route path="/explore/:slug" element={<ExploreAppPage />} />
    </Routes>,
    { route: `/explore/${slug}` },
  );

describe('ExploreAppPage', () => {
  it('shows the description, creator, price and upcoming price, plans with the billing link, inputs and snippets, and Try it', async () => {
    fakePublicPage(
      makeCatalogAppDetail({
        upcoming_price_cents: 150,
        upcoming_price_at: '2030-01-01T00:00:00.000Z',
        plans: [
          {
            id: '00000000-0000-4000-8000-000000000001',
            name: 'Pro',
            description: 'For poets',
            price: 9.99,
            price_cents: 999,
            included_usage_micros: 5_000_000,
            currency: 'usd',
            features: { Support: 'email' },
            included_calls: 100,
          },
          {
            id: '00000000-0000-4000-8000-000000000002',
            name: 'Dong',
            description: 'Paid in dong',
            price: 100_000,
            price_cents: 100_000,
            included_usage_micros: 0,
            currency: 'vnd',
            features: {},
            included_calls: 10,
          },
        ],
      }),
    );
    renderPage('haiku-writer');

    expect(await screen.findByRole('heading', { name: 'Haiku Writer', level: 1 })).toBeTruthy();
    expect(screen.getByText('Seventeen syllables about anything')).toBeTruthy();
    expect(screen.getByText('Ada')).toBeTruthy();
    const price = screen.getByTestId('explore-price');
    expect(price.textContent).toContain('$1.00');
    expect(price.textContent).toContain('Rises to $1.50 from');
    expect(within(price).getByRole('link', { name: 'Try it' }).getAttribute('href')).toBe('/api-test?app=haiku-writer');

    const plans = screen.getByRole('region', { name: 'Plans' });
    expect(plans.textContent).toContain('Pro');
    expect(plans.textContent).toContain('$9.99 USD / month');
    // A currency without a minor unit keeps its amount and symbol.
    expect(plans.textContent).toContain('₫100,000 VND / month');
    expect(plans.textContent).toContain('100 calls included each month');
    expect(plans.textContent).toContain('$5.00 of usage included each month');
    expect(plans.textContent).toContain('Support: email');
    expect(within(plans).getByRole('link', { name: 'Subscribe to a plan' }).getAttribute('href')).toBe('/applications/haiku-writer/billing');

    const inputs = screen.getByRole('region', { name: 'Inputs' });
    const rows = within(inputs).getAllByRole('row').slice(1);
    expect(rows.map((row) => row.querySelector('code')?.textContent)).toEqual(['inputs.style', 'inputs.topic', 'inputs.lines']);
    expect(rows[0]!.textContent).toContain('one of "classic", "modern"');
    expect(rows[1]!.textContent).toContain('The main text of the call.');
    expect(rows[2]!.textContent).toContain('minimum 3; maximum 3');

    const reference = screen.getByRole('region', { name: 'API reference' });
    expect(reference.textContent).toContain('POST http://tollbooth.test/api/app/haiku-writer/completion-messages');
    expect(within(reference).getByRole('link', { name: 'http://tollbooth.test/api/app/haiku-writer/openapi.json' })).toBeTruthy();
    expect(screen.getByTestId('snippet-curl').textContent).toContain("curl -X POST 'http://tollbooth.test/api/app/haiku-writer/completion-messages'");
    fireEvent.click(within(reference).getByRole('tab', { name: 'OpenAI SDK' }));
    expect(screen.getByTestId('snippet-openai_sdk').textContent).toContain("import OpenAI from 'openai';");
  });

  it('shows a per-token app’s rate card line by line, its announced card with the date, and where a call’s amount is (issue 60)', async () => {
    const card = { form: 'per_token' as const, call_micros: 0, cached_input_per_mtok_micros: null, markup_bps: 0, max_call_micros: null };
    fakePublicPage(
      makeCatalogAppDetail({
        price_cents: 1,
        pricing: { ...card, input_per_mtok_micros: 2_000_000, output_per_mtok_micros: 8_000_000, cached_input_per_mtok_micros: 500_000, minimum_micros: 1_000 },
        upcoming_price_cents: 1,
        upcoming_price_at: '2030-01-01T00:00:00.000Z',
        upcoming_pricing: { ...card, input_per_mtok_micros: 3_000_000, output_per_mtok_micros: 12_000_000, minimum_micros: 1_000 },
      }),
    );
    renderPage('haiku-writer');

    const price = await screen.findByTestId('explore-price');
    expect(price.textContent).not.toContain('per successful call');
    expect(price.textContent).toContain('$2.00 per million input tokens');
    expect(within(price).getByRole('list', { name: 'Rate card' }).textContent).toBe(
      '$8.00 per million output tokens$0.50 per million cached input tokensminimum $0.001 per call',
    );
    const upcoming = within(price).getByTestId('explore-upcoming-price');
    expect(upcoming.textContent).toContain(`From ${new Date('2030-01-01T00:00:00.000Z').toLocaleDateString()}:`);
    expect(
      within(upcoming)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['$3.00 per million input tokens', '$12.00 per million output tokens', 'minimum $0.001 per call']);
    const reference = screen.getByRole('region', { name: 'API reference' });
    expect(reference.textContent).toContain('its answer carries the exact amount (usage.total_price');
    expect(reference.textContent).not.toContain('costs $0.01');
  });

  it('copies a snippet to the clipboard', async () => {
    fakePublicPage(makeCatalogAppDetail());
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    renderPage('haiku-writer');
    fireEvent.click(await screen.findByRole('button', { name: 'Copy curl snippet' }));
    expect(writeText).toHaveBeenCalledWith(expect.stringContaining('Authorization: Bearer YOUR_API_KEY'));
    expect(await screen.findByText('Copied')).toBeTruthy();
  });

  it('says the application is not found for an app outside the catalog', async () => {
    fakePublicPage(null);
    renderPage('secret-app');
    expect((await screen.findByRole('alert')).textContent).toContain('Application not found');
  });

  it('marks a demo-model app and offers a signed-in caller Download App (issue 25 items 7, 8)', async () => {
    const page = makeCatalogAppDetail({ demo_model: true });
    const fetchMock = vi.fn(async (input: string) => {
      const url = new URL(input, 'http://localhost');
      if (url.pathname === `/api/catalog/${page.slug}`) return jsonResponse(page);
      if (url.pathname === `/api/app/${page.slug}/download-frontend`)
        return new Response(new Blob(['zip']), {
          headers: { 'Content-Type': 'application/zip', 'Content-Disposition': 'attachment; filename="haiku-writer-completion-app.zip"' },
        });
      return jsonResponse({ code: 'not_found', message: 'Not found', status: 404 }, 404);
    });
    vi.stubGlobal('fetch', fetchMock);
    URL.createObjectURL = vi.fn(() => 'blob:zip');
    URL.revokeObjectURL = vi.fn();
    const saved: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push(this.download);
    });
    renderWithProviders(
      <Routes>
        <Route path="/explore/:slug" element={<ExploreAppPage />} />
      </Routes>,
      { route: `/explore/${page.slug}`, auth: signedInAuth() },
    );
    expect(await screen.findByRole('heading', { name: 'Haiku Writer', level: 1 })).toBeTruthy();
    expect(screen.getByText('Demo model')).toBeTruthy();
    expect(screen.getByTestId('demo-model-notice').textContent).toContain('built-in demo model');
    fireEvent.click(within(screen.getByTestId('explore-price')).getByRole('button', { name: 'Download App' }));
    await vi.waitFor(() => expect(saved).toEqual(['haiku-writer-completion-app.zip']));
    const asked = fetchMock.mock.calls.map(([input]) => new URL(input, 'http://localhost'));
    expect(asked.some((url) => url.pathname === '/api/app/haiku-writer/download-frontend' && url.search === '?type=completion')).toBe(true);
  });

  it('shows no demo mark for a real model and no Download App to an anonymous visitor', async () => {
    fakePublicPage(makeCatalogAppDetail());
    renderPage('haiku-writer');
    expect(await screen.findByRole('heading', { name: 'Haiku Writer', level: 1 })).toBeTruthy();
    expect(screen.queryByText('Demo model')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Download App' })).toBeNull();
  });
});
