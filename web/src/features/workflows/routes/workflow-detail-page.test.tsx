import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { makeApp, withTestAccessToken } from '@/testing/fake-apps-server';
import { perTokenCard } from '@/testing/rate-cards';
import { renderSignedInPage } from '@/testing/test-utils';
import { APP_INFO, fakeWorkflowsServer, makeWorkflowConfig } from '../testing/fake-workflows-server';
import { WorkflowDetailPage } from './workflow-detail-page';

withTestAccessToken();

const app = makeApp({
  name: 'Support Bot',
  slug: 'support-bot',
  description: 'Wraps a Dify chatflow',
  type: 'workflow',
  status: 'live',
  visibility: 'public',
  price_cents: 25,
});

function renderDetail(options: Parameters<typeof fakeWorkflowsServer>[0] = {}, route = '/workflows/support-bot') {
  const server = fakeWorkflowsServer({ apps: [{ ...app }], ...options });
  renderSignedInPage('/workflows/:slug', <WorkflowDetailPage />, route);
  return server;
}

const field = (label: string) => screen.getByLabelText(label) as HTMLInputElement;
const openTab = (name: string) => fireEvent.click(screen.getByRole('tab', { name }));

/** Once the page is there: Test Config on the Provider Config tab, and the result panel. */
async function runTestConfig() {
  await screen.findByRole('heading', { name: 'Support Bot', level: 1 });
  openTab('Provider Config');
  fireEvent.click(screen.getByRole('button', { name: 'Test Config' }));
  return screen.findByTestId('workflow-test-result');
}

describe('WorkflowDetailPage', () => {
  it('shows the header with badges, Back to List, Download App, Save Changes and the basic settings', async () => {
    renderDetail({ configs: { 'support-bot': makeWorkflowConfig({ app_info: APP_INFO }) } });
    expect(await screen.findByRole('heading', { name: 'Support Bot', level: 1 })).toBeTruthy();
    const badges = screen.getByTestId('workflow-badges');
    expect(badges.textContent).toContain('workflow');
    expect(badges.textContent).toContain('Chatflow');
    expect(badges.textContent).toContain('live');
    expect(badges.textContent).toContain('public');
    expect(screen.getByRole('link', { name: 'Back to List' }).getAttribute('href')).toBe('/workflows');
    expect(screen.getByRole('button', { name: 'Download App' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Save Changes' })).toBeTruthy();
    expect(field('Application Name').value).toBe('Support Bot');
    expect(field('Price per Call (USD)').value).toBe('0.25');
  });

  it('Provider Config: the select, the provider card, the generated form with a password key, and Advanced Settings', async () => {
    renderDetail();
    await screen.findByRole('heading', { name: 'Support Bot', level: 1 });
    openTab('Provider Config');
    const select = field('Workflow Provider') as unknown as HTMLSelectElement;
    expect(select.value).toBe('dify');
    expect(within(select).getByRole('option', { name: 'Select a provider...' })).toBeTruthy();
    expect(within(select).getByRole('option', { name: 'Dify - Any Dify app through its Service API' })).toBeTruthy();
    const card = screen.getByTestId('provider-card');
    expect(card.textContent).toContain('Dify');
    expect(card.textContent).toContain('dify');
    expect(field('API Key *').type).toBe('password');
    expect(field('API Key *').value).toBe('••••••••WXYZ');
    expect(field('API Base URL *').type).toBe('text');
    expect(field('App ID *').value).toBe('dify-app-1');
    expect(field('Timeout (seconds)').value).toBe('300');
    expect(field('Max Iterations').value).toBe('10');
    expect(field('Enable Logging').checked).toBe(true);
  });

  it('Test Config shows Configuration Valid with the app info and its input form', async () => {
    const server = renderDetail();
    const result = await runTestConfig();
    expect(result.textContent).toContain('Configuration Valid');
    expect(result.textContent).toContain('Support Chatflow');
    expect(result.textContent).toContain('advanced-chat');
    expect(within(result).getByRole('cell', { name: 'customer' })).toBeTruthy();
    expect(server.bodyOf('POST /api/app/support-bot/workflow/test-config/')).toEqual({
      provider: 'dify',
      provider_config: { base_url: 'https://api.dify.ai/v1', api_key: '••••••••WXYZ', app_id: 'dify-app-1' },
    });
  });

  it('Test Config shows Configuration Error with the reason', async () => {
    renderDetail({
      testResult: { success: false, message: 'Configuration Error', error: "Dify refused the app's API key (401 unauthorized)", app_info: null },
    });
    const result = await runTestConfig();
    expect(result.textContent).toContain('Configuration Error');
    expect(result.textContent).toContain('refused the app');
  });

  it('Save Changes patches the app and the workflow configuration', async () => {
    const server = renderDetail();
    await screen.findByRole('heading', { name: 'Support Bot', level: 1 });
    fireEvent.change(field('Price per Call (USD)'), { target: { value: '0.40' } });
    openTab('Provider Config');
    fireEvent.change(field('Timeout (seconds)'), { target: { value: '60' } });
    fireEvent.change(field('API Key *'), { target: { value: 'app-newkey1234' } });
    fireEvent.click(field('Enable Logging'));
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('Changes saved')).toBeTruthy();
    expect(server.bodyOf('PATCH /api/app/support-bot/')).toMatchObject({ price_cents: 40, status: 'live' });
    expect(server.bodyOf('PATCH /api/app/support-bot/workflow/')).toEqual({
      provider: 'dify',
      provider_config: { base_url: 'https://api.dify.ai/v1', api_key: 'app-newkey1234', app_id: 'dify-app-1' },
      timeout_seconds: 60,
      max_iterations: 10,
      enable_logging: false,
      changelog: 'Updated via UI',
    });
    // The saved form is cached: the input form shows under the settings.
    await waitFor(() => expect(screen.getByRole('cell', { name: 'customer' })).toBeTruthy());
    expect(field('API Key *').value).toBe('••••••••1234');
  });

  it('shows a per-token card read-only and saves without writing price_cents over it (issue 60)', async () => {
    const pricing = perTokenCard({ input_per_mtok_micros: 1_000_000, output_per_mtok_micros: 2_000_000, max_call_micros: 100_000 });
    const server = renderDetail({ apps: [{ ...app, price_cents: 1, pricing }] });
    await screen.findByRole('heading', { name: 'Support Bot', level: 1 });
    expect(screen.queryByLabelText('Price per Call (USD)')).toBeNull();
    expect(screen.getByTestId('rate-card').textContent).toContain('at most $0.10 per call');
    expect(screen.queryByTestId('upcoming-rate-card')).toBeNull();
    fireEvent.change(field('Application Name'), { target: { value: 'Support Bot 2' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('Changes saved')).toBeTruthy();
    expect(server.bodyOf('PATCH /api/app/support-bot/')).toMatchObject({ name: 'Support Bot 2' });
    expect(server.bodyOf('PATCH /api/app/support-bot/')).not.toHaveProperty('price_cents');
  });

  it('Version History lists versions and rolls back', async () => {
    const server = renderDetail();
    await screen.findByRole('heading', { name: 'Support Bot', level: 1 });
    openTab('Provider Config');
    fireEvent.change(field('Timeout (seconds)'), { target: { value: '60' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    await screen.findByText('Changes saved');
    openTab('Version History');
    await screen.findByTestId('workflow-version-2');
    expect((screen.getByRole('button', { name: 'Roll back to version 2' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Roll back to version 1' }));
    expect(await screen.findByText('Rolled back to version 1')).toBeTruthy();
    expect(server.bodyOf('POST /api/workflows/support-bot/versions/')).toEqual({ rollback_to: 1 });
    openTab('Provider Config');
    await waitFor(() => expect(field('Timeout (seconds)').value).toBe('300'));
  });

  it('No providers available; No configuration schema available', async () => {
    renderDetail({ providers: [] });
    await screen.findByRole('heading', { name: 'Support Bot', level: 1 });
    openTab('Provider Config');
    expect(screen.getByText('No providers available')).toBeTruthy();
  });

  it('a provider without a schema says so', async () => {
    const bare = {
      id: 'bare',
      name: 'Bare',
      description: 'No settings',
      slug: 'bare',
      config_schema: { type: 'object' as const, properties: {}, required: [] },
    };
    renderDetail({ providers: [bare], configs: { 'support-bot': makeWorkflowConfig({ provider: bare, provider_config: {} }) } });
    await screen.findByRole('heading', { name: 'Support Bot', level: 1 });
    openTab('Provider Config');
    expect(screen.getByText('No configuration schema available')).toBeTruthy();
  });

  it('Workflow not found for a missing app and for a prompt app', async () => {
    renderDetail({}, '/workflows/nope');
    expect(await screen.findByText('Workflow not found')).toBeTruthy();
  });
});
