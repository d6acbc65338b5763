import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import type { Profile } from '@tollbooth/contract';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, renderWithProviders, signedInAuth, signInApiEachTest } from '@/testing/test-utils';
import { ProfilePage } from './profile-page';

const storedProfile: Profile = {
  user: {
    id: '7f1c2a9e-0000-4000-8000-000000000001',
    username: 'ada',
    email: 'ada@example.com',
    first_name: 'Ada',
    last_name: 'Lovelace',
    display_name: 'Ada L.',
    is_active: true,
    date_joined: '2024-03-15T12:00:00.000Z',
  },
  creator: { display_name: 'Ada L.', plan: 'free', credits: 5, credits_cents: 500 },
};

type FetchCall = [string, RequestInit | undefined];

/** A fake server: GET answers the current profile, PATCH stores the body's user and answers it. */
function fakeProfileServer(patchResponse?: () => Response) {
  let current = structuredClone(storedProfile);
  const fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
    if (url !== '/api/auth/profile/') return jsonResponse({ code: 'not_found', message: 'Not found', status: 404 }, 404);
    if (init?.method === 'PATCH') {
      if (patchResponse) return patchResponse();
      const body = JSON.parse(String(init.body)) as { user: Profile['user']; creator: { display_name: string } | null };
      current = {
        user: body.user,
        creator: current.creator && body.creator ? { ...current.creator, display_name: body.creator.display_name } : current.creator,
      };
      return jsonResponse(current);
    }
    return jsonResponse(current);
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

function calls(fetchMock: ReturnType<typeof fakeProfileServer>, method: string): FetchCall[] {
  return (fetchMock.mock.calls as FetchCall[]).filter(([, init]) => (init?.method ?? 'GET') === method);
}

signInApiEachTest();
afterEach(() => {
  vi.useRealTimers();
});

describe('ProfilePage', () => {
  it('shows the profile and the account information', async () => {
    fakeProfileServer();
    renderWithProviders(<ProfilePage />, { route: '/profile', auth: signedInAuth() });

    expect(screen.getByRole('heading', { name: 'Profile Settings' })).toBeTruthy();
    expect(((await screen.findByLabelText('First Name')) as HTMLInputElement).value).toBe('Ada');
    expect((screen.getByLabelText('Last Name') as HTMLInputElement).value).toBe('Lovelace');
    expect((screen.getByLabelText('Username') as HTMLInputElement).value).toBe('ada');
    expect((screen.getByLabelText('Display Name') as HTMLInputElement).value).toBe('Ada L.');

    const email = screen.getByLabelText('Email') as HTMLInputElement;
    expect(email.value).toBe('ada@example.com');
    expect(email.disabled).toBe(true);
    expect(screen.getByText('Email cannot be changed through this form.')).toBeTruthy();

    expect(screen.getByRole('heading', { name: 'Account Information' })).toBeTruthy();
    expect(screen.getByText(storedProfile.user.id)).toBeTruthy();
    expect(screen.getByText(new Date(storedProfile.user.date_joined).toLocaleDateString())).toBeTruthy();
    expect(screen.getByText('Active')).toBeTruthy();
    expect(screen.getByText('free')).toBeTruthy();
    expect(screen.getByText('$5.00')).toBeTruthy();
  });

  it('saves the merged profile, refreshes it, and shows the success banner for 3 seconds', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const fetchMock = fakeProfileServer();
    renderWithProviders(<ProfilePage />, { route: '/profile', auth: signedInAuth() });

    fireEvent.change(await screen.findByLabelText('First Name'), { target: { value: 'Augusta' } });
    fireEvent.change(screen.getByLabelText('Display Name'), { target: { value: 'Countess' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));

    expect(screen.getByRole('button', { name: 'Saving...' })).toBeTruthy();
    expect(await screen.findByText('Profile updated successfully!')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Save Changes' })).toBeTruthy();

    const patches = calls(fetchMock, 'PATCH');
    expect(patches).toHaveLength(1);
    const [, init] = patches[0] as FetchCall;
    expect(new Headers(init?.headers).get('Authorization')).toBe('Bearer test-token');
    expect(JSON.parse(String(init?.body))).toEqual({
      user: { ...storedProfile.user, first_name: 'Augusta', display_name: 'Countess' },
      creator: { display_name: 'Countess' },
    });
    // The profile query is refreshed after saving.
    expect(calls(fetchMock, 'GET').filter(([url]) => url === '/api/auth/profile/')).toHaveLength(2);

    await act(async () => {
      vi.advanceTimersByTime(2000);
    });
    expect(screen.queryByText('Profile updated successfully!')).not.toBeNull();

    await act(async () => {
      vi.advanceTimersByTime(1000);
    });
    expect(screen.queryByText('Profile updated successfully!')).toBeNull();
  });

  it('shows a validation error from the server as a plain banner', async () => {
    fakeProfileServer(() =>
      jsonResponse({ code: 'invalid_param', message: 'user.username: must NOT have more than 150 characters', status: 400, params: 'user.username' }, 400),
    );
    renderWithProviders(<ProfilePage />, { route: '/profile', auth: signedInAuth() });

    fireEvent.change(await screen.findByLabelText('Username'), { target: { value: 'x'.repeat(151) } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));

    const banner = await screen.findByRole('alert');
    expect(banner.textContent).toBe('user.username: must NOT have more than 150 characters');
    expect(screen.queryByText('Profile updated successfully!')).toBeNull();
  });

  it('says "Failed to fetch profile" when loading fails', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => jsonResponse({ code: 'internal', message: 'Database unavailable', status: 500 }, 500)),
    );
    renderWithProviders(<ProfilePage />, { route: '/profile', auth: signedInAuth() });

    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Failed to fetch profile');
    expect(alert.textContent).toContain('Database unavailable');
  });

  it('only logs a 401', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const fetchMock = vi.fn(async () => jsonResponse({ code: 'unauthorized', message: 'Unauthorized', status: 401 }, 401));
    vi.stubGlobal('fetch', fetchMock);
    renderWithProviders(<ProfilePage />, { route: '/profile', auth: signedInAuth() });

    await waitFor(() => expect(warn).toHaveBeenCalled());
    await waitFor(() => expect(screen.queryByText('Loading profile...')).toBeNull());
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.queryByText('Failed to fetch profile')).toBeNull();
  });
});
