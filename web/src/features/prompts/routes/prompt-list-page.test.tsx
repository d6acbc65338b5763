import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeAppsServer, makeApp, withTestAccessToken } from '@/testing/fake-apps-server';
import { fakeAuth, renderWithProviders, signedInAuth } from '@/testing/test-utils';
import { PromptListPage } from './prompt-list-page';

withTestAccessToken();

const apps = [
  makeApp({ name: 'Haiku Writer', description: 'Writes haiku', interaction_mode: 'completion', visibility: 'public', status: 'live', price_cents: 150 }),
  makeApp({ name: 'Chat Buddy', interaction_mode: 'chat', visibility: 'private', status: 'draft', creator_name: 'Grace' }),
  makeApp({ name: 'Old Summariser', visibility: 'embed', status: 'archived' }),
  makeApp({ name: 'Support Bot', type: 'workflow', visibility: 'public', status: 'live' }),
];

const cardNames = () =>
  within(screen.getByRole('list', { name: 'Prompt Applications' }))
    .getAllByRole('heading')
    .map((heading) => heading.textContent);
const select = (label: string) => screen.getByLabelText(label) as HTMLSelectElement;

describe('PromptListPage', () => {
  it('lists only prompt apps, as cards linking to /prompts/{slug}', async () => {
    const server = fakeAppsServer({ apps });
    renderWithProviders(<PromptListPage />, { route: '/prompts', auth: signedInAuth() });

    expect(screen.getByRole('heading', { name: 'Prompt Applications', level: 1 })).toBeTruthy();
    await screen.findByText('Haiku Writer');
    expect(cardNames()).toEqual(['Haiku Writer', 'Chat Buddy', 'Old Summariser']);
    expect(server.calls()).toEqual(['GET /api/app/']);

    const haiku = screen.getByText('Haiku Writer').closest('article') as HTMLElement;
    const card = within(haiku);
    expect(card.getByRole('link', { name: 'Haiku Writer' }).getAttribute('href')).toBe('/prompts/haiku-writer');
    expect(card.getByText('Writes haiku')).toBeTruthy();
    expect(card.getByText('Completion')).toBeTruthy();
    expect(card.getByText('public').dataset.tone).toBe('green');
    expect(card.getByText('live').dataset.tone).toBe('green');
    expect(card.getByText('Created by Ada L.')).toBeTruthy();
    expect(card.getByText('$1.50')).toBeTruthy();
    expect(card.getByRole('button', { name: 'Download' })).toBeTruthy();

    const buddy = within(screen.getByText('Chat Buddy').closest('article') as HTMLElement);
    expect(buddy.getByText('Chat')).toBeTruthy();
    expect(buddy.getByText('private').dataset.tone).toBe('gray');
    expect(buddy.getByText('draft').dataset.tone).toBe('yellow');
    expect(buddy.getByText('Created by Grace')).toBeTruthy();
  });

  it('filters by visibility and status', async () => {
    fakeAppsServer({ apps });
    renderWithProviders(<PromptListPage />, { route: '/prompts', auth: signedInAuth() });
    await screen.findByText('Haiku Writer');

    expect(Array.from(select('Visibility').options).map((option) => option.text)).toEqual(['All', 'private', 'public', 'embed']);
    expect(Array.from(select('Status').options).map((option) => option.text)).toEqual(['All', 'draft', 'live', 'archived']);

    fireEvent.change(select('Status'), { target: { value: 'live' } });
    expect(cardNames()).toEqual(['Haiku Writer']);

    fireEvent.change(select('Status'), { target: { value: '' } });
    fireEvent.change(select('Visibility'), { target: { value: 'embed' } });
    expect(cardNames()).toEqual(['Old Summariser']);

    fireEvent.change(select('Status'), { target: { value: 'draft' } });
    expect(screen.queryByRole('list', { name: 'Prompt Applications' })).toBeNull();
    expect(screen.getByText('No prompts')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Create New Prompt' }).getAttribute('href')).toBe('/applications/create?type=prompt');
  });

  it('reads the filters from the query string', async () => {
    fakeAppsServer({ apps });
    renderWithProviders(<PromptListPage />, { route: '/prompts?visibility=private&status=draft', auth: signedInAuth() });
    await screen.findByText('Chat Buddy');
    expect(cardNames()).toEqual(['Chat Buddy']);
    expect(select('Visibility').value).toBe('private');
    expect(select('Status').value).toBe('draft');
  });

  it('shows the empty state with a link to create a prompt', async () => {
    fakeAppsServer({ apps: [apps[3]!] });
    renderWithProviders(<PromptListPage />, { route: '/prompts', auth: signedInAuth() });
    expect(await screen.findByText('No prompts')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Create New Prompt' }).getAttribute('href')).toBe('/applications/create?type=prompt');
  });

  it('asks anonymous visitors to log in', () => {
    const server = fakeAppsServer({ apps });
    renderWithProviders(<PromptListPage />, { route: '/prompts', auth: fakeAuth() });
    expect(screen.getByText('Please log in to view prompts.')).toBeTruthy();
    expect(server.calls()).toEqual([]);
  });
});
