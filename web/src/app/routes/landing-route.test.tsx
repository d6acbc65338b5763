import { screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { withTestAccessToken } from '@/testing/fake-apps-server';
import { jsonResponse, renderWithProviders, signedInAuth } from '@/testing/test-utils';
import { LandingRoute } from './landing-route';

withTestAccessToken();

describe('LandingRoute', () => {
  it('welcomes the user back by the current display name, not the name from sign-up', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async (input: string) =>
        new URL(input, 'http://localhost').pathname === '/api/auth/profile/'
          ? jsonResponse({
              user: {
                id: 'user-1',
                username: 'ada',
                email: 'ada@example.com',
                first_name: 'Ada',
                last_name: 'Lovelace',
                display_name: 'Countess Ada',
                is_active: true,
                date_joined: '2024-01-01T00:00:00.000Z',
              },
              creator: { display_name: 'Countess Ada', plan: 'free', credits: 0 },
            })
          : jsonResponse({ code: 'not_found', message: 'Not found', status: 404 }, 404),
      ),
    );
    // The sign-in token still carries the sign-up name.
    renderWithProviders(<LandingRoute />, { auth: signedInAuth() });
    expect(await screen.findByText('Welcome back, Countess Ada!')).toBeTruthy();
    expect(screen.queryByText('Welcome back, Ada Lovelace!')).toBeNull();
  });
});
