import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { LandingPage, type LandingPageProps } from './landing-page';

function renderLanding(props: Partial<LandingPageProps>) {
  render(
    <MemoryRouter>
      <LandingPage productName="Tollbooth" authStatus="unauthenticated" {...props} />
    </MemoryRouter>,
  );
}

describe('LandingPage', () => {
  it('invites visitors to sign up, sign in or read about the features', () => {
    renderLanding({ authStatus: 'unauthenticated' });
    expect(screen.getByRole('heading', { level: 1 }).textContent).toMatch(/Monetize your AI prompts/);
    expect(screen.getByRole('link', { name: 'Get Started Free' }).getAttribute('href')).toBe('/register');
    expect(screen.getByRole('link', { name: 'Sign In' }).getAttribute('href')).toBe('/login');
    expect(screen.getByRole('link', { name: /^Learn more/ }).getAttribute('href')).toBe('#features');
    expect(document.getElementById('features')).not.toBeNull();
    expect(screen.getByText('One-Click API Hosting')).toBeTruthy();
    expect(screen.getByText('Seamless Payments')).toBeTruthy();
    expect(screen.queryByText('Go to Dashboard')).toBeNull();
  });

  it('shows a disabled Loading... button while authentication loads', () => {
    renderLanding({ authStatus: 'loading' });
    const button = screen.getByRole('button', { name: 'Loading...' }) as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    expect(screen.queryByRole('link', { name: 'Get Started Free' })).toBeNull();
  });

  it('welcomes back a signed-in user and links to the dashboard', () => {
    renderLanding({ authStatus: 'authenticated', userName: 'Ada' });
    expect(screen.getByRole('link', { name: 'Go to Dashboard' }).getAttribute('href')).toBe('/dashboard');
    expect(screen.getByText('Welcome back, Ada!')).toBeTruthy();
  });
});
