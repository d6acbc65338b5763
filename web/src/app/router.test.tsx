import { fireEvent, screen, waitFor } from '@testing-library/react';
import { useLocation } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { INTENDED_PATH_KEY } from '../features/auth/lib/intended-path';
import { fakeAuth, jsonResponse, renderWithProviders, signedInAuth } from '../testing/test-utils';
import { AppRoutes } from './router';

function CurrentPath() {
  const location = useLocation();
  return <output data-testid="path">{`${location.pathname}${location.search}`}</output>;
}

function renderAt(route: string, auth = fakeAuth()) {
  return renderWithProviders(
    <>
      <AppRoutes />
      <CurrentPath />
    </>,
    { route, auth },
  );
}

const currentPath = () => screen.getByTestId('path').textContent;

beforeEach(() => {
  // The layout loads the profile for the signed-in user; these tests do not look at it.
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => jsonResponse({ code: 'not_found', message: 'Not found', status: 404 }, 404)),
  );
});

describe('route guards', () => {
  it('shows "Checking authentication..." while authentication loads', () => {
    renderAt('/profile', fakeAuth({ status: 'loading' }));
    expect(screen.getByText('Checking authentication...')).toBeTruthy();
    expect(currentPath()).toBe('/profile');
  });

  it('sends anonymous visitors of a protected page to /login and remembers where they were going', async () => {
    renderAt('/applications/my-app/billing?tab=plans');
    expect(await screen.findByText('Sign in to your account')).toBeTruthy();
    expect(currentPath()).toBe('/login');
    expect(window.sessionStorage.getItem(INTENDED_PATH_KEY)).toBe('/applications/my-app/billing?tab=plans');
  });

  it.each(['/dashboard', '/applications', '/analytics', '/applications/my-app/analytics'])(
    'sends anonymous visitors of %s to / and remembers the path',
    async (path) => {
      renderAt(path);
      expect(await screen.findByRole('link', { name: 'Get Started Free' })).toBeTruthy();
      expect(currentPath()).toBe('/');
      expect(window.sessionStorage.getItem(INTENDED_PATH_KEY)).toBe(path);
    },
  );

  it('sends anonymous visitors of /applications/create to /login', async () => {
    renderAt('/applications/create');
    expect(await screen.findByText('Sign in to your account')).toBeTruthy();
    expect(currentPath()).toBe('/login');
  });

  it('lets anyone open the API test console', async () => {
    renderAt('/api-test?app=my-app');
    expect(await screen.findByRole('heading', { name: 'API Test Console' })).toBeTruthy();
    expect(currentPath()).toBe('/api-test?app=my-app');
  });

  it('shows protected pages to signed-in users', async () => {
    renderAt('/applications', signedInAuth());
    expect(await screen.findByRole('heading', { name: 'Applications' })).toBeTruthy();
    expect(screen.getByText('Manage your applications and view performance insights.')).toBeTruthy();
  });

  it.each([
    ['/applications/create?type=workflow', 'Create New Prompt or Workflow Application'],
    ['/prompts', 'Prompt Applications'],
    ['/workflows', 'Workflow Applications'],
  ])('shows the real screen of %s to signed-in users', async (path, heading) => {
    renderAt(path, signedInAuth());
    expect(await screen.findByRole('heading', { name: heading, level: 1 })).toBeTruthy();
    expect(screen.queryByText('This screen is on its way in an upcoming release.')).toBeNull();
  });

  it('shows the application detail screen, here for a missing application', async () => {
    renderAt('/applications/my-app', signedInAuth());
    expect(await screen.findByText('Application not found')).toBeTruthy();
  });

  it('shows the not-found page for unknown paths', () => {
    renderAt('/does/not/exist');
    expect(screen.getByRole('heading', { name: 'Page not found' })).toBeTruthy();
  });
});

describe('pages loaded on demand', () => {
  it("shows an announced loading state while a page's code loads, then the page", async () => {
    renderAt('/terms');
    // The Suspense fallback: a status region with visible text, under the header that stays.
    expect(screen.getAllByRole('status').map((status) => status.textContent)).toContain('Loading page...');
    expect(await screen.findByRole('heading', { name: 'Terms of Service', level: 1 })).toBeTruthy();
    expect(screen.queryByText('Loading page...')).toBeNull();
  });
});

describe('sign-in pages', () => {
  it('sends a signed-in visitor of /login to the intended path', async () => {
    window.sessionStorage.setItem(INTENDED_PATH_KEY, '/profile');
    renderAt('/login', signedInAuth());
    expect(await screen.findByRole('heading', { name: 'Profile Settings' })).toBeTruthy();
    expect(currentPath()).toBe('/profile');
    expect(window.sessionStorage.getItem(INTENDED_PATH_KEY)).toBeNull();
  });

  it('sends a signed-in visitor of /login to / without an intended path', async () => {
    renderAt('/auth/login', signedInAuth());
    expect(await screen.findByText('Welcome back, Ada Lovelace!')).toBeTruthy();
    expect(currentPath()).toBe('/');
  });

  it('sends a signed-in visitor of /register to /dashboard without an intended path', async () => {
    renderAt('/auth/register', signedInAuth());
    expect(await screen.findByText('Manage your applications and view performance insights.')).toBeTruthy();
    expect(currentPath()).toBe('/dashboard');
  });

  it('offers the identity provider by name and starts sign-in', async () => {
    const auth = fakeAuth();
    renderAt('/login', auth);
    const button = screen.getByRole('button', { name: 'Sign in with Tollbooth' });
    expect(screen.getByRole('link', { name: 'Create new account' }).getAttribute('href')).toBe('/register');
    button.click();
    expect(await screen.findByRole('button', { name: 'Signing in...' })).toBeTruthy();
    expect(auth.signIn).toHaveBeenCalledWith();
  });

  it('shows the authentication error on the login page', () => {
    renderAt('/login', fakeAuth({ error: 'Sign-in session not found' }));
    expect(screen.getByRole('alert').textContent).toBe('Sign-in session not found');
  });

  it('creates an account through the identity provider sign-up page', async () => {
    const auth = fakeAuth();
    renderAt('/register', auth);
    expect(screen.getByRole('heading', { name: 'Create your account' })).toBeTruthy();
    expect(screen.getByText('Start monetizing your AI prompts today.')).toBeTruthy();
    screen.getByRole('button', { name: 'Create Account' }).click();
    expect(await screen.findByRole('button', { name: 'Creating account...' })).toBeTruthy();
    expect(auth.signIn).toHaveBeenCalledWith({ signUp: true });
  });

  it('re-enables the button when the redirect could not start', async () => {
    const auth = fakeAuth({ signIn: vi.fn(async () => false) });
    renderAt('/login', auth);
    screen.getByRole('button', { name: 'Sign in with Tollbooth' }).click();
    expect(await screen.findByRole('button', { name: 'Sign in with Tollbooth' })).toBeTruthy();
    expect(auth.signIn).toHaveBeenCalledTimes(1);
  });
});

describe('document titles', () => {
  it.each([
    ['/', 'Home · Tollbooth'],
    ['/login', 'Sign In · Tollbooth'],
    ['/register', 'Create Account · Tollbooth'],
    ['/terms', 'Terms of Service · Tollbooth'],
    ['/privacy', 'Privacy Policy · Tollbooth'],
    ['/api-test', 'API Test Console · Tollbooth'],
    ['/no-such-page', 'Page not found · Tollbooth'],
  ])('titles %s "%s"', async (path, title) => {
    renderAt(path);
    await waitFor(() => expect(document.title).toBe(title));
  });

  it('titles signed-in screens by screen and application', async () => {
    renderAt('/prompts/haiku-writer', signedInAuth());
    await waitFor(() => expect(document.title).toBe('haiku-writer · Prompt · Tollbooth'));
  });
});

describe('Terms and Privacy', () => {
  it('are real pages the sign-up page links to', async () => {
    renderAt('/register');
    expect((await screen.findByRole('link', { name: 'Terms of Service' })).getAttribute('href')).toBe('/terms');
    expect(screen.getByRole('link', { name: 'Privacy Policy' }).getAttribute('href')).toBe('/privacy');
    fireEvent.click(screen.getByRole('link', { name: 'Terms of Service' }));
    expect(await screen.findByRole('heading', { name: 'Terms of Service', level: 1 })).toBeTruthy();
    expect(currentPath()).toBe('/terms');
  });

  it('shows the Privacy Policy', async () => {
    renderAt('/privacy');
    expect(await screen.findByRole('heading', { name: 'Privacy Policy', level: 1 })).toBeTruthy();
  });
});
