import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fakeAppsServer, makeApp, withTestAccessToken } from '@/testing/fake-apps-server';
import { fakeAuth, jsonResponse, renderWithProviders, signedInAuth } from '@/testing/test-utils';
import { WorkflowListPage } from './workflow-list-page';

withTestAccessToken();

const apps = [
  makeApp({ name: 'Haiku Writer', type: 'prompt' }),
  makeApp({ name: 'Support Bot', type: 'workflow', description: 'Answers tickets', visibility: 'embed', status: 'live', price_cents: 5 }),
  makeApp({ name: 'Research Flow', type: 'workflow', visibility: 'private', status: 'draft' }),
];

describe('WorkflowListPage', () => {
  it('lists workflow apps with their badges, price and links', async () => {
    fakeAppsServer({ apps });
    renderWithProviders(<WorkflowListPage />, { route: '/workflows', auth: signedInAuth() });

    expect(screen.getByRole('heading', { name: 'Workflow Applications', level: 1 })).toBeTruthy();
    await screen.findByText('Support Bot');
    expect(screen.queryByText('Haiku Writer')).toBeNull();

    const card = within(screen.getByText('Support Bot').closest('article') as HTMLElement);
    expect(card.getByText('support-bot')).toBeTruthy();
    expect(card.getByText('Answers tickets')).toBeTruthy();
    expect(card.getByText('workflow').dataset.tone).toBe('blue');
    expect(card.getByText('live').dataset.tone).toBe('green');
    expect(card.getByText('embed').dataset.tone).toBe('purple');
    expect(card.getByText('$0.05')).toBeTruthy();
    expect(card.getByRole('link', { name: 'Manage' }).getAttribute('href')).toBe('/workflows/support-bot');
    expect(card.getByRole('link', { name: 'Analytics' }).getAttribute('href')).toBe('/applications/support-bot/analytics');

    fireEvent.change(screen.getByLabelText('Status'), { target: { value: 'draft' } });
    expect(screen.queryByText('Support Bot')).toBeNull();
    expect(screen.getByText('Research Flow')).toBeTruthy();
  });

  it('shows "No workflows" with a link to create one', async () => {
    fakeAppsServer({ apps: [apps[0]!] });
    renderWithProviders(<WorkflowListPage />, { route: '/workflows', auth: signedInAuth() });
    expect(await screen.findByText('No workflows')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Create New Workflow' }).getAttribute('href')).toBe('/applications/create?type=workflow');
  });

  it('shows the Error box when the list fails', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => jsonResponse({ code: 'internal', message: 'Database unavailable', status: 500 }, 500)),
    );
    renderWithProviders(<WorkflowListPage />, { route: '/workflows', auth: signedInAuth() });
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Error')).toBeTruthy();
    expect(within(alert).getByText('Database unavailable')).toBeTruthy();
  });

  it('asks anonymous visitors to log in', () => {
    fakeAppsServer({ apps });
    renderWithProviders(<WorkflowListPage />, { route: '/workflows', auth: fakeAuth() });
    expect(screen.getByText('Please log in to view workflows.')).toBeTruthy();
  });
});
