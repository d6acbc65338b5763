import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { CatalogApp } from '@tollbooth/contract';
import { describe, expect, it, vi } from 'vitest';
import { makeCatalogApp } from '@/testing/fake-catalog';
import { perTokenCard } from '@/testing/rate-cards';
import { jsonResponse, renderWithProviders } from '@/testing/test-utils';
import { ExplorePage } from './explore-page';

/** A fake GET /api/catalog/ that pages `apps` by 12 with an opaque cursor and records each query. */
function fakeCatalog(apps: CatalogApp[]) {
  const queries: URLSearchParams[] = [];
  const fetchMock = vi.fn(async (input: string) => {
    const url = new URL(input, 'http://localhost');
    if (url.pathname !== '/api/catalog/') return jsonResponse({ code: 'not_found', message: 'Not found', status: 404 }, 404);
    queries.push(url.searchParams);
    const type = url.searchParams.get('type');
    const matching = apps.filter((app) => !type || app.type === type);
    const start = Number(url.searchParams.get('cursor') ?? 0);
    const limit = Number(url.searchParams.get('limit'));
    const items = matching.slice(start, start + limit);
    const more = start + limit < matching.length;
    return jsonResponse({ results: items, has_more: more, next_cursor: more ? String(start + limit) : null });
  });
  vi.stubGlobal('fetch', fetchMock);
  return { queries, fetchMock };
}

describe('ExplorePage', () => {
  it('lists live public apps with creator, price, upcoming price and popularity, linking each to its page', async () => {
    fakeCatalog([
      makeCatalogApp({ name: 'Haiku Writer', demo_model: true, upcoming_price_cents: 150, upcoming_price_at: '2030-01-01T00:00:00.000Z' }),
      makeCatalogApp({ name: 'Free Summariser', price_cents: 0, creator_name: 'Grace', calls_30d: 1, mode: 'chat', type: 'workflow' }),
    ]);
    renderWithProviders(<ExplorePage />, { route: '/explore' });

    expect(screen.getByRole('heading', { name: 'Explore', level: 1 })).toBeTruthy();
    const list = await screen.findByRole('list', { name: 'Apps' });
    const cards = within(list).getAllByRole('listitem');
    expect(cards).toHaveLength(2);
    expect(within(cards[0]!).getByRole('link', { name: 'Haiku Writer' }).getAttribute('href')).toBe('/explore/haiku-writer');
    expect(cards[0]!.textContent).toContain('by Ada');
    expect(cards[0]!.textContent).toContain('$1.00');
    expect(cards[0]!.textContent).toContain('Price rises to $1.50');
    expect(cards[0]!.textContent).toContain('12 calls in 30 days');
    // Answered by the demo model: marked, so it is not mistaken for a paid real model (issue 25 item 8).
    expect(within(cards[0]!).getByText('Demo model')).toBeTruthy();
    expect(within(cards[1]!).queryByText('Demo model')).toBeNull();
    expect(cards[1]!.textContent).toContain('Free');
    expect(cards[1]!.textContent).toContain('1 call in 30 days');
    expect(cards[1]!.textContent).toContain('workflow');
  });

  it('shows a per-token app’s rate card in one line, and its announced card with its date (issue 60)', async () => {
    const card = perTokenCard();
    fakeCatalog([
      makeCatalogApp({
        name: 'Token Poet',
        price_cents: 0,
        pricing: { ...card, input_per_mtok_micros: 2_000_000, output_per_mtok_micros: 8_000_000 },
        upcoming_price_cents: 0,
        upcoming_price_at: '2030-01-01T00:00:00.000Z',
        upcoming_pricing: { ...card, input_per_mtok_micros: 3_000_000, output_per_mtok_micros: 12_000_000 },
      }),
      makeCatalogApp({
        name: 'Cost Plus',
        price_cents: 1,
        pricing: { ...card, form: 'cost_plus', markup_bps: 12_500, input_per_mtok_micros: 0, output_per_mtok_micros: 0 },
      }),
    ]);
    renderWithProviders(<ExplorePage />, { route: '/explore' });
    const cards = within(await screen.findByRole('list', { name: 'Apps' })).getAllByRole('listitem');
    // Not "Free" although its least call is 0 cents: it is paid by the token.
    expect(within(cards[0]!).getByTestId('catalog-price').textContent).toBe('$2.00 in / $8.00 out per million tokens');
    expect(cards[0]!.textContent).toContain(
      `Price rises to $3.00 in / $12.00 out per million tokens from ${new Date('2030-01-01T00:00:00.000Z').toLocaleDateString()}`,
    );
    expect(within(cards[1]!).getByTestId('catalog-price').textContent).toBe('model cost × 1.25');
  });

  it('sends search, filters and sort to the catalog API and shows the empty state', async () => {
    const { queries } = fakeCatalog([makeCatalogApp()]);
    renderWithProviders(<ExplorePage />, { route: '/explore?sort=newest' });
    await screen.findByRole('list', { name: 'Apps' });
    expect(queries.at(-1)?.get('sort')).toBe('newest');

    fireEvent.change(screen.getByLabelText('Type'), { target: { value: 'workflow' } });
    expect(await screen.findByText('No apps found')).toBeTruthy();
    expect(queries.at(-1)?.get('type')).toBe('workflow');

    fireEvent.change(screen.getByLabelText('Search'), { target: { value: 'haiku' } });
    await waitFor(() => expect(queries.at(-1)?.get('q')).toBe('haiku'));
    fireEvent.change(screen.getByLabelText('Mode'), { target: { value: 'chat' } });
    fireEvent.change(screen.getByLabelText('Price'), { target: { value: 'free' } });
    await waitFor(() => expect(queries.at(-1)?.get('price')).toBe('free'));
    expect(Object.fromEntries(queries.at(-1)!)).toEqual({ q: 'haiku', type: 'workflow', mode: 'chat', price: 'free', sort: 'newest', limit: '12' });
  });

  it('loads the next page with the cursor while has_more is true', async () => {
    const apps = Array.from({ length: 15 }, (_, index) => makeCatalogApp({ name: `App ${index + 1}` }));
    const { queries } = fakeCatalog(apps);
    renderWithProviders(<ExplorePage />, { route: '/explore' });
    const list = await screen.findByRole('list', { name: 'Apps' });
    expect(within(list).getAllByRole('listitem')).toHaveLength(12);

    fireEvent.click(screen.getByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(within(list).getAllByRole('listitem')).toHaveLength(15));
    expect(queries.at(-1)?.get('cursor')).toBe('12');
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
  });
});
