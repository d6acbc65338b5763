import { QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import type { UserManager } from 'oidc-client-ts';
import { useEffect } from 'react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { apiRequest } from '@/lib/api-client';
import { useAuth } from '@/lib/auth/use-auth';
import { createFakeUserManager, makeUser } from '@/testing/fake-user-manager';
import { createTestQueryClient, jsonResponse, testRuntimeConfig } from '@/testing/test-utils';
import { loadUserManager } from '../lib/load-user-manager';
import { storedSessionKey } from '../lib/stored-session';
import { AuthProvider } from './auth-provider';

// The tests that pass no userManager control when the identity client "arrives".
vi.mock('../lib/load-user-manager', () => ({ loadUserManager: vi.fn(), preloadUserManager: vi.fn() }));

let probeRenders = 0;

function Probe() {
  const auth = useAuth();
  probeRenders += 1;
  return (
    <div>
      <p data-testid="status">{auth.status}</p>
      <p data-testid="name">{auth.user?.name ?? ''}</p>
      <p data-testid="error">{auth.error ?? ''}</p>
      <button type="button" onClick={() => void auth.signOut()}>
        Sign out
      </button>
      <button type="button" onClick={() => void auth.signIn({ signUp: true })}>
        Sign up
      </button>
    </div>
  );
}

function renderProvider(fake: ReturnType<typeof createFakeUserManager> | null, route = '/profile') {
  const queryClient = createTestQueryClient();
  queryClient.setQueryData(['profile'], { cached: true });
  render(
    <MemoryRouter initialEntries={[route]}>
      <QueryClientProvider client={queryClient}>
        <AuthProvider oidc={testRuntimeConfig.oidc} userManager={fake?.userManager}>
          <Routes>
            <Route path="/" element={<p>Home page</p>} />
            <Route path="*" element={<p>Another page</p>} />
          </Routes>
          <Probe />
        </AuthProvider>
      </QueryClientProvider>
    </MemoryRouter>,
  );
  return queryClient;
}

const status = () => screen.getByTestId('status').textContent;

describe('AuthProvider', () => {
  it('restores a stored session', async () => {
    renderProvider(createFakeUserManager(makeUser()));
    await waitFor(() => expect(status()).toBe('authenticated'));
    expect(screen.getByTestId('name').textContent).toBe('Ada Lovelace');
  });

  it('is signed out without a stored session', async () => {
    renderProvider(createFakeUserManager(null));
    await waitFor(() => expect(status()).toBe('unauthenticated'));
  });

  it('renews an expired session with its refresh token', async () => {
    const fake = createFakeUserManager(makeUser({ expired: true }));
    fake.manager.signinSilent.mockResolvedValue(makeUser({ accessToken: 'access-2' }));
    renderProvider(fake);
    await waitFor(() => expect(status()).toBe('authenticated'));
    expect(fake.manager.signinSilent).toHaveBeenCalledTimes(1);
  });

  it('attaches the access token to API calls', async () => {
    renderProvider(createFakeUserManager(makeUser({ accessToken: 'access-xyz' })));
    await waitFor(() => expect(status()).toBe('authenticated'));
    const fetchMock = vi.fn(async () => jsonResponse({}));
    vi.stubGlobal('fetch', fetchMock);
    await apiRequest('/auth/profile/');
    const [, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(init.headers).toMatchObject({ Authorization: 'Bearer access-xyz' });
  });

  it('asks the identity provider for its sign-up page', async () => {
    const fake = createFakeUserManager(null);
    renderProvider(fake, '/register');
    fireEvent.click(screen.getByRole('button', { name: 'Sign up' }));
    await waitFor(() => expect(fake.manager.signinRedirect).toHaveBeenCalledWith({ prompt: 'create' }));
  });

  it('signs out: ends server sessions, clears the query cache, then redirects to the provider', async () => {
    const fake = createFakeUserManager(makeUser());
    const fetchMock = vi.fn(async () => jsonResponse({ end_session_endpoint: 'http://localhost:3000/oidc/session/end' }));
    vi.stubGlobal('fetch', fetchMock);
    const queryClient = renderProvider(fake);
    await waitFor(() => expect(status()).toBe('authenticated'));

    fireEvent.click(screen.getByRole('button', { name: 'Sign out' }));

    await waitFor(() => expect(fake.manager.signoutRedirect).toHaveBeenCalledTimes(1));
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/auth/logout/');
    expect(init.method).toBe('POST');
    expect(queryClient.getQueryData(['profile'])).toBeUndefined();
    // The browser is leaving for the provider: neither signed-in nor signed-out screens meanwhile.
    expect(status()).toBe('loading');
    expect(await screen.findByText('Home page')).toBeTruthy();
  });

  it('signs out locally when the provider redirect fails, even if the logout call failed', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const fake = createFakeUserManager(makeUser());
    fake.manager.signoutRedirect.mockRejectedValue(new Error('No end session endpoint'));
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => jsonResponse({ message: 'boom' }, 500)),
    );
    renderProvider(fake);
    await waitFor(() => expect(status()).toBe('authenticated'));

    fireEvent.click(screen.getByRole('button', { name: 'Sign out' }));

    expect(await screen.findByText('Home page')).toBeTruthy();
    await waitFor(() => expect(status()).toBe('unauthenticated'));
    expect(fake.manager.removeUser).toHaveBeenCalled();
  });

  it('treats a failed token renewal as signed out and clears the cache', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const fake = createFakeUserManager(makeUser());
    const queryClient = renderProvider(fake);
    await waitFor(() => expect(status()).toBe('authenticated'));

    await act(() => fake.emit('silentRenewError', new Error('invalid_grant')));

    await waitFor(() => expect(status()).toBe('unauthenticated'));
    expect(queryClient.getQueryData(['profile'])).toBeUndefined();
  });

  it('keeps the session when another tab already renewed it', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const fake = createFakeUserManager(makeUser());
    renderProvider(fake);
    await waitFor(() => expect(status()).toBe('authenticated'));

    fake.state.stored = makeUser({ accessToken: 'renewed-elsewhere' });
    await act(() => fake.emit('silentRenewError', new Error('invalid_grant')));

    expect(status()).toBe('authenticated');
    expect(fake.manager.removeUser).not.toHaveBeenCalled();
  });

  it('clears the cache when the user is unloaded', async () => {
    const fake = createFakeUserManager(makeUser());
    const queryClient = renderProvider(fake);
    await waitFor(() => expect(status()).toBe('authenticated'));

    await act(() => fake.manager.removeUser());

    expect(status()).toBe('unauthenticated');
    expect(queryClient.getQueryData(['profile'])).toBeUndefined();
  });

  describe('with a session stored by oidc-client-ts, before the identity client has loaded', () => {
    function storeSession(user = makeUser()) {
      window.localStorage.setItem(storedSessionKey(testRuntimeConfig.oidc), user.toStorageString());
    }

    /** The identity client "arrives" when the returned function is called. */
    function deferManager() {
      let arrive: (manager: UserManager) => void = () => {};
      vi.mocked(loadUserManager).mockReturnValue(
        new Promise((resolve) => {
          arrive = resolve;
        }),
      );
      return (manager: UserManager) => act(async () => arrive(manager));
    }

    it('renders signed in at once and sends the stored token', async () => {
      storeSession(makeUser({ accessToken: 'access-stored' }));
      deferManager();
      renderProvider(null);
      expect(status()).toBe('authenticated');
      expect(screen.getByTestId('name').textContent).toBe('Ada Lovelace');

      const fetchMock = vi.fn(async () => jsonResponse({}));
      vi.stubGlobal('fetch', fetchMock);
      await apiRequest('/auth/profile/');
      const [, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
      expect(init.headers).toMatchObject({ Authorization: 'Bearer access-stored' });
    });

    it('sends the token with requests that pages mounted with it make from their effects', async () => {
      storeSession(makeUser({ accessToken: 'access-stored' }));
      deferManager();
      const fetchMock = vi.fn(async () => jsonResponse({}));
      vi.stubGlobal('fetch', fetchMock);
      function LoadsOnMount() {
        useEffect(() => void apiRequest('/app/', { auth: 'required' }), []);
        return null;
      }
      render(
        <MemoryRouter>
          <QueryClientProvider client={createTestQueryClient()}>
            <AuthProvider oidc={testRuntimeConfig.oidc}>
              <LoadsOnMount />
            </AuthProvider>
          </QueryClientProvider>
        </MemoryRouter>,
      );
      await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
      const [, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
      expect(init.headers).toMatchObject({ Authorization: 'Bearer access-stored' });
    });

    it('lets the identity client confirm the same session without rendering the signed-in page again', async () => {
      const user = makeUser({ accessToken: 'access-stored' });
      storeSession(user);
      const arrive = deferManager();
      probeRenders = 0;
      renderProvider(null);
      expect(status()).toBe('authenticated');
      const rendersBefore = probeRenders;

      const fake = createFakeUserManager(user);
      await arrive(fake.userManager);

      await waitFor(() => expect(fake.manager.getUser).toHaveBeenCalled());
      expect(status()).toBe('authenticated');
      expect(probeRenders).toBe(rendersBefore);
    });

    it('signs out when the identity client no longer has the session', async () => {
      storeSession();
      const arrive = deferManager();
      renderProvider(null);
      expect(status()).toBe('authenticated');

      await arrive(createFakeUserManager(null).userManager);

      await waitFor(() => expect(status()).toBe('unauthenticated'));
    });

    it('waits for the identity client when the stored access token has expired', async () => {
      storeSession(makeUser({ expired: true }));
      const arrive = deferManager();
      renderProvider(null);
      expect(status()).toBe('loading');

      const fake = createFakeUserManager(makeUser({ expired: true }));
      fake.manager.signinSilent.mockResolvedValue(makeUser({ accessToken: 'access-2' }));
      await arrive(fake.userManager);

      await waitFor(() => expect(status()).toBe('authenticated'));
      expect(fake.manager.signinSilent).toHaveBeenCalledTimes(1);
    });
  });
});
