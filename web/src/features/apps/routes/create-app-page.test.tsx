import { fireEvent, screen, waitFor } from '@testing-library/react';
import { Route, Routes, useLocation } from 'react-router';
import { describe, expect, it } from 'vitest';
import { PER_CALL_PRICE_MESSAGE } from '@/components/pricing/price-form.utils';
import { fakeAppsServer, withTestAccessToken } from '@/testing/fake-apps-server';
import { jsonResponse, renderWithProviders, signedInAuth } from '@/testing/test-utils';
import { CreateAppPage } from './create-app-page';

withTestAccessToken();

function CurrentPath() {
  const location = useLocation();
  return <output data-testid="path">{`${location.pathname}${location.search}`}</output>;
}

function renderCreate(route = '/applications/create') {
  return renderWithProviders(
    <>
      <Routes>
        <Route path="/applications/create" element={<CreateAppPage />} />
        <Route path="*" element={<p>Elsewhere</p>} />
      </Routes>
      <CurrentPath />
    </>,
    { route, auth: signedInAuth() },
  );
}

const input = (label: string) => screen.getByLabelText(label) as HTMLInputElement;
const currentPath = () => screen.getByTestId('path').textContent;
const submit = () => fireEvent.click(screen.getByRole('button', { name: 'Create Application' }));

describe('CreateAppPage', () => {
  it('opens a prompt form with the spec defaults', () => {
    fakeAppsServer();
    renderCreate();

    expect(screen.getByRole('heading', { name: 'Create New Prompt or Workflow Application' })).toBeTruthy();
    expect(input('Name').value).toBe('');
    expect(input('Description').value).toBe('');
    expect(input('Type').value).toBe('prompt');
    expect(input('Interaction Mode').value).toBe('completion');
    expect(input('Visibility').value).toBe('private');
    expect(input('Price per API call (USD)').value).toBe('1.00');
    expect(screen.getByText('$1.00 per call')).toBeTruthy();
    expect(screen.queryByLabelText('Provider App ID')).toBeNull();
    expect(screen.queryByLabelText('Provider API Key')).toBeNull();
  });

  it('shows the price in dollars while typing', () => {
    fakeAppsServer();
    renderCreate();

    fireEvent.change(input('Price per API call (USD)'), { target: { value: '2.5' } });
    expect(screen.getByText('$2.50 per call')).toBeTruthy();
    fireEvent.change(input('Price per API call (USD)'), { target: { value: '0.05' } });
    expect(screen.getByText('$0.05 per call')).toBeTruthy();
  });

  it('asks for the provider fields only for a workflow (from ?type=workflow or the Type select)', () => {
    fakeAppsServer();
    renderCreate('/applications/create?type=workflow');

    expect(input('Type').value).toBe('workflow');
    expect(screen.queryByLabelText('Interaction Mode')).toBeNull();
    expect(input('Provider App ID').type).toBe('text');
    expect(input('Provider API Key').type).toBe('password');

    fireEvent.change(input('Type'), { target: { value: 'prompt' } });
    expect(screen.queryByLabelText('Provider App ID')).toBeNull();
    expect(input('Interaction Mode').value).toBe('completion');
  });

  it('validates the required fields and the minimum price before calling the API', () => {
    const server = fakeAppsServer();
    renderCreate('/applications/create?type=workflow');

    fireEvent.change(input('Price per API call (USD)'), { target: { value: 'abc' } });
    expect(screen.getByText('$0.00 per call')).toBeTruthy();
    submit();

    expect(screen.getByText('Name is required.')).toBeTruthy();
    expect(screen.getByText('Provider App ID is required.')).toBeTruthy();
    expect(screen.getByText('Provider API Key is required.')).toBeTruthy();
    expect(screen.getByText(PER_CALL_PRICE_MESSAGE)).toBeTruthy();
    expect(input('Name').getAttribute('aria-invalid')).toBe('true');
    expect(document.activeElement).toBe(input('Name'));
    expect(server.calls()).toEqual([]);

    fireEvent.change(input('Price per API call (USD)'), { target: { value: '0' } });
    submit();
    expect(screen.getByText(PER_CALL_PRICE_MESSAGE)).toBeTruthy();
    expect(server.calls()).toEqual([]);
  });

  it('creates a prompt app and goes to its page', async () => {
    const server = fakeAppsServer();
    renderCreate();

    fireEvent.change(input('Name'), { target: { value: '  Haiku Writer ' } });
    fireEvent.change(input('Description'), { target: { value: 'Writes haiku' } });
    fireEvent.change(input('Interaction Mode'), { target: { value: 'chat' } });
    fireEvent.change(input('Visibility'), { target: { value: 'public' } });
    fireEvent.change(input('Price per API call (USD)'), { target: { value: '0.25' } });
    submit();

    expect(screen.getByRole('button', { name: 'Creating...' })).toHaveProperty('disabled', true);
    await waitFor(() => expect(currentPath()).toBe('/applications/haiku-writer'));
    expect(server.bodyOf('POST /api/app/')).toEqual({
      name: 'Haiku Writer',
      description: 'Writes haiku',
      type: 'prompt',
      interaction_mode: 'chat',
      visibility: 'public',
      price_cents: 25,
    });
  });

  it('sends the provider configuration of a workflow app', async () => {
    const server = fakeAppsServer();
    renderCreate('/applications/create?type=workflow');

    fireEvent.change(input('Name'), { target: { value: 'Support Bot' } });
    fireEvent.change(input('Provider App ID'), { target: { value: 'app-123' } });
    fireEvent.change(input('Provider API Key'), { target: { value: 'app-secret' } });
    submit();

    await waitFor(() => expect(currentPath()).toBe('/applications/support-bot'));
    expect(server.bodyOf('POST /api/app/')).toEqual({
      name: 'Support Bot',
      description: '',
      type: 'workflow',
      visibility: 'private',
      price_cents: 100,
      provider_config: { app_id: 'app-123', api_key: 'app-secret', base_url: 'https://api.dify.ai/v1' },
    });
  });

  it('tests the Dify settings before creating: base URL prefilled, the result with the app info', async () => {
    let sent: unknown = null;
    fakeAppsServer({
      override: (url, init) => {
        if (url.pathname !== '/api/workflow-providers/test-config/') return undefined;
        sent = JSON.parse(String(init?.body));
        return jsonResponse({
          success: true,
          message: 'Connected to Dify app "Support"',
          error: null,
          app_info: { name: 'Support', description: '', mode: 'advanced-chat', user_input_form: [] },
        });
      },
    });
    renderCreate('/applications/create?type=workflow');
    expect(input('Provider Base URL').value).toBe('https://api.dify.ai/v1');
    fireEvent.change(input('Provider Base URL'), { target: { value: 'https://dify.example.com/v1' } });
    fireEvent.change(input('Provider App ID'), { target: { value: 'app-123' } });
    fireEvent.change(input('Provider API Key'), { target: { value: 'app-secret' } });
    fireEvent.click(screen.getByRole('button', { name: 'Test Connection' }));
    const result = await screen.findByTestId('provider-test-result');
    expect(result.textContent).toContain('Configuration Valid');
    expect(result.textContent).toContain('Support (advanced-chat)');
    expect(sent).toEqual({ provider: 'dify', provider_config: { app_id: 'app-123', api_key: 'app-secret', base_url: 'https://dify.example.com/v1' } });
  });

  it('shows the server’s 400 message', async () => {
    fakeAppsServer({
      override: (url, init) =>
        url.pathname === '/api/app/' && init?.method === 'POST'
          ? jsonResponse({ code: 'invalid_param', message: 'price_cents: must be >= 1', status: 400, params: 'price_cents' }, 400)
          : undefined,
    });
    renderCreate();

    fireEvent.change(input('Name'), { target: { value: 'Haiku Writer' } });
    submit();

    expect((await screen.findByRole('alert')).textContent).toBe('price_cents: must be >= 1');
    expect(currentPath()).toBe('/applications/create');
    expect(screen.getByRole('button', { name: 'Create Application' })).toHaveProperty('disabled', false);
  });

  it('cancels to /applications', () => {
    fakeAppsServer();
    renderCreate();
    expect(screen.getByRole('link', { name: 'Cancel' }).getAttribute('href')).toBe('/applications');
  });
});
