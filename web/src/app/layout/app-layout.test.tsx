import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { setAccessTokenGetter } from '../../lib/api-client';
import { fakeAuth, jsonResponse, renderWithProviders, signedInAuth } from '../../testing/test-utils';
import { AppLayout } from './app-layout';
import { userInitial } from './nav-items';

function renderLayout(auth = signedInAuth()) {
  return renderWithProviders(
    <Routes>
      <Route element={<AppLayout />}>
        <Route path="*" element={<p>Page body</p>} />
      </Route>
    </Routes>,
    { route: '/dashboard', auth },
  );
}

beforeEach(() => {
  const restore = setAccessTokenGetter(async () => 'test-token');
  vi.stubGlobal(
    'fetch',
    vi.fn(async () =>
      jsonResponse({
        user: {
          id: 'u1',
          username: 'ada',
          email: 'ada@example.com',
          first_name: 'Ada',
          last_name: 'L',
          display_name: 'countess',
          is_active: true,
          date_joined: '2024-01-01T00:00:00Z',
        },
        creator: null,
      }),
    ),
  );
  return restore;
});

describe('userInitial', () => {
  it('uses the display name, else the e-mail, upper-cased', () => {
    expect(userInitial('ada', 'zed@example.com')).toBe('A');
    expect(userInitial('', 'zed@example.com')).toBe('Z');
    expect(userInitial(null, null)).toBe('?');
  });
});

describe('AppLayout', () => {
  it('links the product name home and shows the signed-in links', () => {
    renderLayout();
    expect(screen.getByRole('link', { name: 'Tollbooth' }).getAttribute('href')).toBe('/');
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(
      within(nav)
        .getAllByRole('link')
        .map((link) => [link.textContent, link.getAttribute('href')]),
    ).toEqual([
      ['Dashboard', '/dashboard'],
      ['Applications', '/applications'],
      ['Analytics', '/analytics'],
      ['API Test', '/api-test'],
      ['Explore', '/explore'],
      ['Money', '/money'],
    ]);
  });

  it('shows the initial of the display name from the profile', async () => {
    renderLayout();
    const button = await screen.findByRole('button', { name: 'User menu for countess' });
    expect(button.textContent).toBe('C');
  });

  it('opens the user menu, closes it with Escape and returns focus to its button', async () => {
    renderLayout();
    const button = screen.getByRole('button', { name: /User menu/ });
    expect(button.getAttribute('aria-haspopup')).toBe('menu');
    expect(button.getAttribute('aria-expanded')).toBe('false');

    fireEvent.click(button);
    expect(button.getAttribute('aria-expanded')).toBe('true');
    const menu = screen.getByRole('menu');
    expect(
      within(menu)
        .getAllByRole('menuitem')
        .map((item) => item.textContent),
    ).toEqual(['Profile', 'Money', 'Analytics', 'Sign out']);
    await waitFor(() => expect(document.activeElement?.textContent).toBe('Profile'));

    fireEvent.keyDown(menu, { key: 'ArrowDown' });
    expect(document.activeElement?.textContent).toBe('Money');

    fireEvent.keyDown(document, { key: 'Escape' });
    expect(screen.queryByRole('menu')).toBeNull();
    expect(document.activeElement).toBe(button);
  });

  it('closes the user menu on a click outside', () => {
    renderLayout();
    fireEvent.click(screen.getByRole('button', { name: /User menu/ }));
    expect(screen.getByRole('menu')).toBeTruthy();
    fireEvent.mouseDown(screen.getByText('Page body'));
    expect(screen.queryByRole('menu')).toBeNull();
  });

  it('signs out from the user menu', () => {
    const auth = signedInAuth();
    renderLayout(auth);
    fireEvent.click(screen.getByRole('button', { name: /User menu/ }));
    fireEvent.click(screen.getByRole('menuitem', { name: 'Sign out' }));
    expect(auth.signOut).toHaveBeenCalledTimes(1);
  });

  it('offers Sign in and Get Started when signed out', () => {
    renderLayout(fakeAuth());
    expect(screen.getByRole('link', { name: 'Sign in' }).getAttribute('href')).toBe('/login');
    expect(screen.getByRole('link', { name: 'Get Started' }).getAttribute('href')).toBe('/register');
    expect(screen.getByRole('link', { name: 'Explore' }).getAttribute('href')).toBe('/explore');
    expect(screen.queryByRole('navigation', { name: 'Main' })).toBeNull();
  });

  it('shows a spinner while authentication loads', () => {
    renderLayout(fakeAuth({ status: 'loading' }));
    expect(screen.getByRole('status').textContent).toBe('Loading authentication');
    expect(screen.queryByRole('link', { name: 'Sign in' })).toBeNull();
  });

  it('mirrors the navigation in the mobile menu, which closes on Escape', async () => {
    renderLayout();
    const toggle = screen.getByRole('button', { name: 'Open main menu' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');

    // The menu's code loads on the first tap.
    const mobileNav = await screen.findByRole('navigation', { name: 'Main (mobile)' });
    expect(
      within(mobileNav)
        .getAllByRole('link')
        .map((link) => link.textContent),
    ).toEqual(['Dashboard', 'Applications', 'Analytics', 'API Test', 'Explore', 'Money']);
    expect(screen.getAllByRole('button', { name: 'Sign out' })).toHaveLength(1);

    fireEvent.keyDown(document, { key: 'Escape' });
    expect(screen.queryByRole('navigation', { name: 'Main (mobile)' })).toBeNull();
    expect(document.activeElement).toBe(toggle);
  });
});
