import { screen, waitFor } from '@testing-library/react';
import { StrictMode } from 'react';
import { Route, Routes, useLocation } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { fakeAuth, renderWithProviders, signedInAuth } from '@/testing/test-utils';
import { INTENDED_PATH_KEY } from '../lib/intended-path';
import { CallbackPage } from './callback-page';

function Destination() {
  const location = useLocation();
  return <p>Arrived at {location.pathname}</p>;
}

function renderCallback(auth = fakeAuth()) {
  // jsdom's URL is what the page hands to the OIDC client; make each test's callback URL unique.
  window.history.replaceState(null, '', `/auth/callback?code=${Math.random()}&state=abc`);
  return renderWithProviders(
    <StrictMode>
      <Routes>
        <Route path="/auth/callback" element={<CallbackPage />} />
        <Route path="*" element={<Destination />} />
      </Routes>
    </StrictMode>,
    { route: '/auth/callback?code=x&state=abc', auth },
  );
}

describe('CallbackPage', () => {
  it('finishes sign-in once, even under StrictMode, then goes to the intended path and forgets it', async () => {
    window.sessionStorage.setItem(INTENDED_PATH_KEY, '/profile?tab=keys');
    let finish: () => void = () => {};
    const completeSignIn = vi.fn(() => new Promise<void>((resolve) => (finish = resolve)));
    renderCallback(fakeAuth({ completeSignIn }));

    expect(screen.getByText('Signing you in...')).toBeTruthy();
    expect(screen.getByText('Please wait while we complete your authentication.')).toBeTruthy();

    finish();
    expect(await screen.findByText('Arrived at /profile')).toBeTruthy();
    expect(completeSignIn).toHaveBeenCalledTimes(1);
    expect(window.sessionStorage.getItem(INTENDED_PATH_KEY)).toBeNull();
  });

  it('goes to /dashboard when nothing was remembered', async () => {
    renderCallback();
    expect(await screen.findByText('Arrived at /dashboard')).toBeTruthy();
  });

  it('shows the error with a link back to sign in', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    renderCallback(fakeAuth({ completeSignIn: vi.fn(async () => Promise.reject(new Error('No matching state found in storage'))) }));

    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Failed to sign in');
    expect(alert.textContent).toContain('Sign-in session not found');
    expect(screen.getByRole('link', { name: 'Back to sign in' }).getAttribute('href')).toBe('/login');
    await waitFor(() => expect(screen.queryByText(/Arrived at/)).toBeNull());
  });

  it('sends someone already signed in to the dashboard when the callback cannot be completed, instead of a sign-in error (issue 61)', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const completeSignIn = vi.fn(async () => {
      throw new Error('No matching state found in storage');
    });
    renderCallback(signedInAuth({ completeSignIn }));
    expect(await screen.findByText('Arrived at /dashboard')).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
