import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { Application } from '@tollbooth/contract';
import { Link, Route, Routes, useLocation } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { PER_CALL_PRICE_MESSAGE } from '@/components/pricing/price-form.utils';
import { fakeAppsServer, makeApp, makeUsage, withTestAccessToken } from '@/testing/fake-apps-server';
import { perTokenCard } from '@/testing/rate-cards';
import { jsonResponse, renderWithProviders, signedInAuth, testRuntimeConfig } from '@/testing/test-utils';
import { DELETE_CONFIRM_MESSAGE } from '../components/danger-zone';
import { AppDetailPage } from './app-detail-page';

withTestAccessToken();

function CurrentPath() {
  const location = useLocation();
  return <output data-testid="path">{location.pathname}</output>;
}

function renderDetail(slug: string, runtimeConfig = testRuntimeConfig) {
  return renderWithProviders(
    <>
      <Routes>
        <Route path="/applications/:slug" element={<AppDetailPage />} />
        <Route path="*" element={<Link to="/applications/haiku-writer">Open haiku-writer again</Link>} />
      </Routes>
      <CurrentPath />
    </>,
    { route: `/applications/${slug}`, auth: signedInAuth(), runtimeConfig },
  );
}

const currentPath = () => screen.getByTestId('path').textContent;

function haiku(overrides: Partial<Application> = {}) {
  return makeApp({
    name: 'Haiku Writer',
    slug: 'haiku-writer',
    description: 'Writes haiku on demand',
    type: 'prompt',
    status: 'draft',
    visibility: 'embed',
    price_cents: 250,
    creator_name: 'Ada L.',
    ...overrides,
  });
}

describe('AppDetailPage', () => {
  it('shows the application, its endpoint and the sidebar', async () => {
    fakeAppsServer({ apps: [haiku()], usage: { 'haiku-writer': makeUsage({ total_invocations: 4321, total_revenue_cents: 1050 }) } });
    renderDetail('haiku-writer');

    expect(await screen.findByRole('heading', { name: 'Haiku Writer', level: 1 })).toBeTruthy();
    expect(screen.getByTestId('app-slug').textContent).toBe('haiku-writer');
    expect(screen.getByText('Writes haiku on demand')).toBeTruthy();
    const badges = within(screen.getByTestId('app-badges'));
    expect(badges.getByText('prompt').dataset.tone).toBe('green');
    expect(badges.getByText('draft').dataset.tone).toBe('yellow');
    expect(badges.getByText('embed').dataset.tone).toBe('purple');

    expect(screen.getByTestId('api-endpoint').textContent).toBe('POST /api/app/haiku-writer/completion-messages');
    expect(screen.getByRole('link', { name: 'Test API' }).getAttribute('href')).toBe('/api-test?app=haiku-writer');

    expect(await screen.findByText('4,321')).toBeTruthy();
    expect(screen.getByText('$10.50')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'View detailed analytics' }).getAttribute('href')).toBe('/applications/haiku-writer/analytics');
    expect(screen.getByText('$2.50')).toBeTruthy();
    expect(screen.getByText('Ada L.')).toBeTruthy();
    expect(screen.getByText(new Date('2024-05-01T10:00:00.000Z').toLocaleDateString())).toBeTruthy();
  });

  it('shows the endpoint the app’s mode takes: chat-messages for a chat workflow or chat prompt, completion-messages for a completion workflow', async () => {
    fakeAppsServer({
      apps: [
        makeApp({ name: 'Support Bot', slug: 'support-bot', type: 'workflow', call_mode: 'chat' }),
        makeApp({ name: 'Summary Flow', slug: 'summary-flow', type: 'workflow', call_mode: 'completion' }),
        makeApp({ name: 'Chatty', slug: 'chatty', type: 'prompt', interaction_mode: 'chat', call_mode: 'chat' }),
      ],
    });
    renderDetail('support-bot');
    expect((await screen.findByTestId('api-endpoint')).textContent).toBe('POST /api/app/support-bot/chat-messages');
    cleanup();
    renderDetail('summary-flow');
    expect((await screen.findByTestId('api-endpoint')).textContent).toBe('POST /api/app/summary-flow/completion-messages');
    cleanup();
    renderDetail('chatty');
    expect((await screen.findByTestId('api-endpoint')).textContent).toBe('POST /api/app/chatty/chat-messages');
  });

  it('disables the button of the current status and changes the status', async () => {
    const server = fakeAppsServer({ apps: [haiku({ status: 'draft' })] });
    renderDetail('haiku-writer');

    const draft = await screen.findByRole('button', { name: 'Set as Draft' });
    const live = screen.getByRole('button', { name: 'Set as Live' });
    const archive = screen.getByRole('button', { name: 'Archive' });
    expect([draft, live, archive].map((button) => (button as HTMLButtonElement).disabled)).toEqual([true, false, false]);

    fireEvent.click(live);
    await waitFor(() => expect((screen.getByRole('button', { name: 'Set as Live' }) as HTMLButtonElement).disabled).toBe(true));
    expect((screen.getByRole('button', { name: 'Set as Draft' }) as HTMLButtonElement).disabled).toBe(false);
    expect(within(screen.getByTestId('app-badges')).getByText('live').dataset.tone).toBe('green');
    expect(server.bodyOf('PATCH /api/app/haiku-writer/update_status/')).toEqual({ status: 'live' });

    fireEvent.click(screen.getByRole('button', { name: 'Archive' }));
    await waitFor(() => expect(within(screen.getByTestId('app-badges')).getByText('archived').dataset.tone).toBe('gray'));
    expect((screen.getByRole('button', { name: 'Archive' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('deletes only after the confirm dialog, then goes to /applications', async () => {
    const confirm = vi.spyOn(window, 'confirm').mockReturnValueOnce(false).mockReturnValueOnce(true);
    const server = fakeAppsServer({ apps: [haiku()] });
    renderDetail('haiku-writer');

    fireEvent.click(await screen.findByRole('button', { name: 'Delete Application' }));
    expect(confirm).toHaveBeenCalledWith(DELETE_CONFIRM_MESSAGE);
    expect(DELETE_CONFIRM_MESSAGE).toBe('Are you sure you want to delete this application? This action cannot be undone.');
    expect(server.calls()).not.toContain('DELETE /api/app/haiku-writer/');

    fireEvent.click(screen.getByRole('button', { name: 'Delete Application' }));
    await waitFor(() => expect(currentPath()).toBe('/applications'));
    expect(server.calls()).toContain('DELETE /api/app/haiku-writer/');
    expect(server.state.apps).toEqual([]);

    // The cached copy of the deleted application is not shown again.
    fireEvent.click(screen.getByRole('link', { name: 'Open haiku-writer again' }));
    expect(within(await screen.findByRole('alert')).getByText('Application not found')).toBeTruthy();
  });

  it('edits name, description, visibility and price, checking the minimum price', async () => {
    const server = fakeAppsServer({ apps: [haiku()] });
    renderDetail('haiku-writer');

    fireEvent.click(await screen.findByRole('button', { name: 'Edit' }));
    const price = screen.getByLabelText('Price per API call (USD)') as HTMLInputElement;
    expect(price.value).toBe('2.50');
    expect(document.activeElement).toBe(screen.getByLabelText('Name'));

    fireEvent.change(price, { target: { value: '0' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(screen.getByText(PER_CALL_PRICE_MESSAGE)).toBeTruthy();
    expect(server.calls().some((call) => call.startsWith('PATCH'))).toBe(false);

    fireEvent.change(screen.getByLabelText('Name'), { target: { value: 'Haiku Master' } });
    fireEvent.change(screen.getByLabelText('Visibility'), { target: { value: 'public' } });
    fireEvent.change(price, { target: { value: '3.75' } });
    expect(screen.getByText('$3.75 per call')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    // Above $1.00 with no model cost known here, the price asks first (issue 61), and its own button saves it.
    expect(screen.getByTestId('high-price-warning').textContent).toContain('$3.75 per call is far above what a call costs');
    expect(server.calls().some((call) => call.startsWith('PATCH'))).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: 'Save at $3.75 per call' }));

    expect(await screen.findByRole('heading', { name: 'Haiku Master', level: 1 })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Save Changes' })).toBeNull();
    expect(screen.getByText('$3.75')).toBeTruthy();
    expect(server.bodyOf('PATCH /api/app/haiku-writer/')).toEqual({
      name: 'Haiku Master',
      description: 'Writes haiku on demand',
      visibility: 'public',
      price_cents: 375,
    });
  });

  it('edits a per-token card in the chooser, and shows the card and the announced one in the sidebar (issue 60)', async () => {
    const pricing = perTokenCard({ call_micros: 1_000, input_per_mtok_micros: 2_000_000, output_per_mtok_micros: 8_000_000, max_call_micros: 500_000 });
    const server = fakeAppsServer({
      apps: [
        haiku({
          price_cents: 1,
          pricing,
          upcoming_price_cents: 1,
          upcoming_pricing: { ...pricing, output_per_mtok_micros: 9_000_000 },
          upcoming_price_at: '2030-01-08T12:00:00.000Z',
        }),
      ],
    });
    renderDetail('haiku-writer');

    const details = within(await screen.findByRole('region', { name: 'Details' }));
    expect(details.getByText('$2.00 per million input tokens · $8.00 per million output tokens · plus $0.001 per call · at most $0.50 per call')).toBeTruthy();
    expect(details.getByText(/\$9\.00 per million output tokens · plus \$0\.001 per call · at most \$0\.50 per call from /)).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Edit' }));
    expect((screen.getByLabelText('Per token') as HTMLInputElement).checked).toBe(true);
    expect((screen.getByLabelText('Input per million tokens (USD)') as HTMLInputElement).value).toBe('2.00');
    expect((screen.getByLabelText('Fee per call (USD, optional)') as HTMLInputElement).value).toBe('0.001');
    expect((screen.getByLabelText('Most per call (USD, optional)') as HTMLInputElement).value).toBe('0.50');
    fireEvent.change(screen.getByLabelText('Output per million tokens (USD)'), { target: { value: '7.5' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Save Changes' })).toBeNull());
    expect(server.bodyOf('PATCH /api/app/haiku-writer/')).toEqual({
      name: 'Haiku Writer',
      description: 'Writes haiku on demand',
      visibility: 'embed',
      pricing: { form: 'per_token', input_per_mtok_micros: 2_000_000, output_per_mtok_micros: 7_500_000, call_micros: 1_000, max_call_micros: 500_000 },
    });
  });

  it('cancels an edit without saving', async () => {
    const server = fakeAppsServer({ apps: [haiku()] });
    renderDetail('haiku-writer');

    fireEvent.click(await screen.findByRole('button', { name: 'Edit' }));
    fireEvent.change(screen.getByLabelText('Name'), { target: { value: 'Changed' } });
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByLabelText('Name')).toBeNull();
    expect(screen.getByRole('heading', { name: 'Haiku Writer', level: 1 })).toBeTruthy();
    expect(server.calls().some((call) => call.startsWith('PATCH'))).toBe(false);
  });

  it('duplicates and goes to the copy', async () => {
    fakeAppsServer({ apps: [haiku({ status: 'live' })] });
    renderDetail('haiku-writer');

    fireEvent.click(await screen.findByRole('button', { name: 'Duplicate' }));
    await waitFor(() => expect(currentPath()).toBe('/applications/haiku-writer-copy'));
    expect(await screen.findByRole('heading', { name: 'Haiku Writer copy', level: 1 })).toBeTruthy();
    expect(within(screen.getByTestId('app-badges')).getByText('draft')).toBeTruthy();
  });

  it('says "Application not found" for an unknown slug', async () => {
    fakeAppsServer({ apps: [] });
    renderDetail('nope');
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Application not found')).toBeTruthy();
  });

  it('shows Error with the message when loading fails', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => jsonResponse({ code: 'internal', message: 'Database unavailable', status: 500 }, 500)),
    );
    renderDetail('haiku-writer');
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Error')).toBeTruthy();
    expect(within(alert).getByText('Database unavailable')).toBeTruthy();
  });
  describe('the demo model notice', () => {
    const demoConfig = { ...testRuntimeConfig, demo_models: [{ name: 'claude-3-haiku', provider: 'anthropic' as const }] };
    const promptConfigOf = (model: string) => (url: URL) =>
      url.pathname === '/api/app/haiku-writer/prompt/' ? jsonResponse({ model, temperature: 0.7, max_tokens: 2048 }) : undefined;

    it('tells the owner, before publishing, that the app answers from the demo model and how to configure its provider', async () => {
      fakeAppsServer({ apps: [haiku({ status: 'draft' })], override: promptConfigOf('claude-3-haiku') });
      renderDetail('haiku-writer', demoConfig);
      const notice = await screen.findByRole('region', { name: 'Demo model' }, { timeout: 5000 });
      expect(notice.textContent).toContain('This app answers from the demo model');
      expect(notice.textContent).toContain('never charged');
      expect(notice.textContent).toContain('ANTHROPIC_API_KEY');
    });

    it('says nothing when the model has a provider, and never asks when no model is a demo', async () => {
      const server = fakeAppsServer({ apps: [haiku()], override: promptConfigOf('gpt-4') });
      renderDetail('haiku-writer', demoConfig);
      expect(await screen.findByRole('heading', { name: 'Haiku Writer', level: 1 })).toBeTruthy();
      await waitFor(() => expect(server.calls()).toContain('GET /api/app/haiku-writer/prompt/'));
      expect(screen.queryByTestId('demo-model-notice')).toBeNull();
    });

    it('shows the owner the page once the panels above Status Management have their data, so the status buttons never move under a click', async () => {
      let answerConfig: () => void = () => {};
      let answerKeys: () => void = () => {};
      const configAnswered = new Promise<void>((resolve) => {
        answerConfig = resolve;
      });
      const keysAnswered = new Promise<void>((resolve) => {
        answerKeys = resolve;
      });
      fakeAppsServer({
        apps: [haiku({ status: 'draft' })],
        override: (url) => {
          if (url.pathname === '/api/app/haiku-writer/prompt/')
            return configAnswered.then(() => jsonResponse({ model: 'claude-3-haiku', temperature: 0.7, max_tokens: 2048 }));
          if (url.pathname === '/api/keys/') return keysAnswered.then(() => jsonResponse([]));
          return undefined;
        },
      });
      renderDetail('haiku-writer', demoConfig);
      expect(await screen.findByText('Loading application...')).toBeTruthy();
      answerConfig();
      await new Promise((resolve) => setTimeout(resolve, 50));
      // The demo notice is known, the snippet's keys are not: still the spinner, no button to aim at.
      expect(screen.queryByRole('button', { name: 'Set as Live' })).toBeNull();
      expect(screen.getByText('Loading application...')).toBeTruthy();
      answerKeys();
      expect(await screen.findByRole('button', { name: 'Set as Live' })).toBeTruthy();
      // Everything above the buttons came in the same render: the notice and the snippet's text.
      expect(screen.getByRole('region', { name: 'Demo model' })).toBeTruthy();
      expect(screen.getByText(/Put this app on your website with a publishable key/)).toBeTruthy();
      expect(screen.queryByText('Loading your publishable keys…')).toBeNull();
    });

    it('shows the page when the publishable keys cannot be loaded, and keeps it while the snippet retries', async () => {
      const server = fakeAppsServer({
        apps: [haiku()],
        override: (url) => (url.pathname === '/api/keys/' ? jsonResponse({ code: 'internal', message: 'Keys are down', status: 500 }, 500) : undefined),
      });
      renderDetail('haiku-writer');
      expect(await screen.findByRole('button', { name: 'Set as Live' })).toBeTruthy();
      expect(await screen.findByText(/Failed to load your publishable keys: Keys are down/)).toBeTruthy();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(screen.getByRole('button', { name: 'Set as Live' })).toBeTruthy();
      expect(server.calls().filter((call) => call.startsWith('GET /api/keys/')).length).toBeLessThanOrEqual(2);
    });

    it("is not shown to someone who does not own the app (the model is the owner's)", async () => {
      const server = fakeAppsServer({ apps: [haiku({ is_owner: false })], override: promptConfigOf('claude-3-haiku') });
      renderDetail('haiku-writer', demoConfig);
      expect(await screen.findByRole('heading', { name: 'Haiku Writer', level: 1 })).toBeTruthy();
      expect(server.calls()).not.toContain('GET /api/app/haiku-writer/prompt/');
      expect(screen.queryByTestId('demo-model-notice')).toBeNull();
    });
  });
});
